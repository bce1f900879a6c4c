import { createScratchDatabase } from "../../scripts/scratch_database.ts";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

/** A fresh, empty PostgreSQL database for one test. */
export interface TestDatabase {
  url: string;
  /** True on a real server (DATABASE_URL): real concurrency (PGlite runs one statement at a time). */
  real: boolean;
  /** Pool size that the server supports. */
  maxConnections: number;
  close(): Promise<void>;
}

/** True when DATABASE_URL names a real PostgreSQL server. */
export const hasRealPostgres = Boolean(Deno.env.get("DATABASE_URL"));

/**
 * A throwaway database: a new database on the server at DATABASE_URL when set (CI), else an
 * embedded PGlite served over a local socket, so tests pass on a machine without PostgreSQL.
 */
export async function openTestDatabase(): Promise<TestDatabase> {
  const serverUrl = Deno.env.get("DATABASE_URL");
  return serverUrl ? await createServerDatabase(serverUrl) : await startPglite();
}

async function createServerDatabase(serverUrl: string): Promise<TestDatabase> {
  const scratch = await createScratchDatabase(serverUrl, { prefix: "fgw_test_" });
  return { url: scratch.url, real: true, maxConnections: 10, close: scratch.drop };
}

async function startPglite(): Promise<TestDatabase> {
  const db = await PGlite.create();
  // The socket server multiplexes its connections through one query queue (transactions keep
  // their connection), so several pools can share it, one statement at a time.
  const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: 32 });
  await server.start();
  const port = (server as unknown as { port: number }).port;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    real: false,
    maxConnections: 4,
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
}
