import postgres from "postgres";

/** A throwaway database on a PostgreSQL server. */
export interface ScratchDatabase {
  url: string;
  /** Drops the database (closing its open connections) and the admin connection. */
  drop(): Promise<void>;
}

/** Creates an empty database named `<prefix><random>` on the server at `serverUrl`. */
export async function createScratchDatabase(
  serverUrl: string,
  options: { prefix?: string } = {},
): Promise<ScratchDatabase> {
  const name = `${options.prefix ?? "fgw_scratch_"}${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** Runs `fn` on a new database on the server at `serverUrl`, and drops that database afterwards. */
export async function withScratchDatabase<T>(serverUrl: string, fn: (url: string) => Promise<T>): Promise<T> {
  const scratch = await createScratchDatabase(serverUrl, { prefix: "fgw_bench_" });
  try {
    return await fn(scratch.url);
  } finally {
    await scratch.drop();
  }
}
