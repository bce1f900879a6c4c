import { createScratchDatabase } from "../../scripts/scratch_database.ts";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { tmpdir } from "node:os";

/** A fresh, empty PostgreSQL database for one test. */
export interface TestDatabase {
  url: string;
  /** Pool size that the server supports. */
  maxConnections: number;
  close(): Promise<void>;
}

/**
 * True when DATABASE_URL names a real PostgreSQL server. Without it the tests run on an embedded
 * PGlite, which executes one statement at a time: handles on it interleave their statements but
 * never run two at the same instant, so races inside the database cannot happen there.
 */
export const realPostgres = Boolean(Deno.env.get("DATABASE_URL"));

/**
 * A throwaway database: a new database on the server at DATABASE_URL when set (CI), else a fresh
 * `public` schema on this test file's embedded PGlite, so tests pass on a machine without PostgreSQL.
 */
export async function openTestDatabase(): Promise<TestDatabase> {
  const serverUrl = Deno.env.get("DATABASE_URL");
  return serverUrl ? await createServerDatabase(serverUrl) : await freshPgliteSchema();
}

async function createServerDatabase(serverUrl: string): Promise<TestDatabase> {
  const scratch = await createScratchDatabase(serverUrl, { prefix: "fgw_test_" });
  return { url: scratch.url, maxConnections: 10, close: scratch.drop };
}

interface EmbeddedServer {
  db: PGlite;
  url: string;
}

/**
 * This test file's PGlite, started by its first PostgreSQL test (each test file runs in its own
 * worker, so module state is per file) and left running until the worker ends: starting PGlite
 * costs half a second to two seconds, a fresh schema a few milliseconds.
 */
let embedded: Promise<EmbeddedServer> | undefined;
/** The database handed out and not yet closed: a PGlite has one schema to give at a time. */
let inUse = false;

async function startPglite(): Promise<EmbeddedServer> {
  const db = await createPglite();
  // The socket server multiplexes its connections through one query queue (transactions keep
  // their connection), so several pools can share it, one statement at a time.
  const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: 32 });
  await server.start();
  const port = (server as unknown as { port: number }).port;
  return { db, url: `postgres://postgres@127.0.0.1:${port}/postgres` };
}

/**
 * Where the data directory of a freshly initialised PGlite is kept between test files (and runs),
 * named after the PGlite package it came from. Most of PGlite's start-up is `initdb`; a PGlite
 * loaded from this copy starts about four times faster.
 */
const INITIALISED_DATA_DIR = `${tmpdir()}/fgw_test_pglite_${
  import.meta.resolve("@electric-sql/pglite").match(/pglite[@/](\d[^/]*)/)?.[1] ?? "unknown"
}.tar`;

/** A new, empty PGlite: loaded from the initialised copy when there is one, else initialised (and copied). */
async function createPglite(): Promise<PGlite> {
  const copy = await Deno.readFile(INITIALISED_DATA_DIR).catch(() => null);
  if (copy) {
    try {
      return await PGlite.create({ loadDataDir: new Blob([copy]) });
    } catch {
      // An unreadable copy (from another PGlite build): initialise afresh and replace it.
    }
  }
  const db = await PGlite.create();
  await keepCopy(db).catch(() => {}); // without a copy, the next file initialises its own
  return db;
}

async function keepCopy(db: PGlite): Promise<void> {
  const dump = new Uint8Array(await (await db.dumpDataDir("none")).arrayBuffer());
  // Written aside and renamed, so that a test file starting meanwhile never reads half a copy.
  const partial = `${INITIALISED_DATA_DIR}.${crypto.randomUUID()}`;
  await Deno.writeFile(partial, dump);
  await Deno.rename(partial, INITIALISED_DATA_DIR);
}

/**
 * Empties the file's PGlite by dropping and recreating its `public` schema (tables, indexes and
 * the migrations record with it), so the storage under test migrates an empty database. PGlite
 * serves every connection from ONE session and ignores startup parameters, so a schema per test
 * selected by `search_path` would be shared by every connection anyway; tests within a file run
 * one after the other, so one schema, emptied per test, isolates them the same way.
 */
async function freshPgliteSchema(): Promise<TestDatabase> {
  if (inUse) throw new Error("Cannot open a second embedded test database before closing the first");
  inUse = true;
  try {
    embedded ??= startPglite().catch((error) => {
      embedded = undefined;
      throw error;
    });
    const { db, url } = await embedded;
    await db.exec("DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;");
    return {
      url,
      maxConnections: 4,
      close: () => {
        inUse = false;
        return Promise.resolve();
      },
    };
  } catch (error) {
    inUse = false;
    throw error;
  }
}
