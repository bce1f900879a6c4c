import type { Sql } from "postgres";

const MIGRATIONS_DIR = new URL("./migrations/", import.meta.url);
/** Arbitrary constant: the advisory lock that serialises migrators across instances. */
const MIGRATION_LOCK = 4_174_202_611;

/** Applies every `migrations/NNN_name.sql` not yet applied, in name order; returns their names. */
export async function migrate(sql: Sql): Promise<string[]> {
  const files = await migrationFiles();
  return await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (
      name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`;
    const rows = await tx<{ name: string }[]>`SELECT name FROM schema_migrations`;
    const done = new Set(rows.map((row) => row.name));
    const applied: string[] = [];
    for (const file of files.filter((name) => !done.has(name))) {
      await tx.unsafe(await Deno.readTextFile(new URL(file, MIGRATIONS_DIR)));
      await tx`INSERT INTO schema_migrations (name) VALUES (${file})`;
      applied.push(file);
    }
    return applied;
  });
}

async function migrationFiles(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(MIGRATIONS_DIR)) {
    if (entry.isFile && /^\d+_[a-z0-9_]+\.sql$/.test(entry.name)) names.push(entry.name);
  }
  return names.toSorted();
}
