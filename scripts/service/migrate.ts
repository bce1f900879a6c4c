import postgres from "postgres";
import { migrate } from "../../storage/postgres/migrate.ts";

/** Applies pending PostgreSQL migrations to DATABASE_URL (the service also does this on start). */
async function main(): Promise<void> {
  const url = Deno.env.get("DATABASE_URL");
  if (!url) {
    console.error("DATABASE_URL is not set");
    Deno.exit(2);
  }
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const applied = await migrate(sql);
    console.log(applied.length ? `applied: ${applied.join(", ")}` : "up to date");
  } finally {
    await sql.end();
  }
}

if (import.meta.main) await main();
