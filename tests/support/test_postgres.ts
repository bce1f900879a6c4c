import { openPgStorage } from "../../storage/postgres/pg_storage.ts";
import { migrationSet, takePooledDatabase } from "./database_pool.ts";
import type { PGlite } from "@electric-sql/pglite";
import { PgliteServer } from "./pglite_server.ts";
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

/** The database one test file's PostgreSQL tests share, emptied before each of them. */
interface FileDatabase {
  url: string;
  maxConnections: number;
  /** Empties it (see `DELETE_ROWS`). */
  empty(): Promise<void>;
  close(): Promise<void>;
}

/**
 * This worker's database, taken by its first PostgreSQL test (each part of the suite, or a test
 * file run alone, runs in its own worker, and module state is per worker) and given back after
 * its last: a database of the pool kept on the server at DATABASE_URL (CI; `takePooledDatabase`),
 * else an embedded PGlite served over a local socket, so tests pass on a machine without PostgreSQL.
 * Taking one costs a few milliseconds on a server (making one, about 0.6 s) and about a second for
 * a PGlite; emptying it, a few.
 */
let fileDatabase: Promise<FileDatabase> | undefined;
/** A test holds the database: tests within a worker run one after the other, so at most one. */
let inUse = false;

Deno.test.afterAll(async () => {
  const database = await fileDatabase?.catch(() => undefined);
  fileDatabase = undefined;
  await database?.close();
});

/**
 * The file's database, emptied. One database emptied per test rather than a schema per test:
 * PGlite serves every connection from ONE session and ignores startup parameters, so a
 * `search_path` per test would be shared by every connection.
 */
export async function openTestDatabase(): Promise<TestDatabase> {
  if (inUse) throw new Error("Cannot open a second test database before closing the first");
  inUse = true;
  try {
    fileDatabase ??= makeFileDatabase().catch((error) => {
      fileDatabase = undefined;
      throw error;
    });
    const database = await fileDatabase;
    await database.empty();
    const close = () => {
      inUse = false;
      return Promise.resolve();
    };
    return { url: database.url, maxConnections: database.maxConnections, close };
  } catch (error) {
    inUse = false;
    throw error;
  }
}

function makeFileDatabase(): Promise<FileDatabase> {
  const serverUrl = Deno.env.get("DATABASE_URL");
  return serverUrl ? createServerDatabase(serverUrl) : startPglite();
}

/**
 * Run once when a worker takes a server database of the pool: every table but the migrations
 * record that has anything on disk (live rows, or the dead rows `DELETE_ROWS` leaves behind when
 * autovacuum is off) is truncated, with the tables referencing it (CASCADE). A TRUNCATE makes new
 * files for the table and each index, about 20 ms a table on the server here, so it is not done
 * per test; `DELETE_ROWS` follows before the first test, as before every test. TRUNCATE fires no
 * row triggers, so the append-only ledger's trigger does not refuse it.
 */
const TRUNCATE_USED_TABLES = `DO $$ DECLARE used text[]; BEGIN
  SELECT array_agg(format('%I', c.relname)) INTO used FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> 'schema_migrations'
      AND pg_relation_size(c.oid) > 0;
  IF used IS NOT NULL THEN
    EXECUTE 'TRUNCATE ' || array_to_string(used, ', ') || ' CASCADE';
  END IF;
END $$;`;

/**
 * Empties the database before each test: every row deleted and the used sequences restarted, so
 * the test sees the same empty database as a new one and the next storage's `migrate()` finds
 * nothing to apply (migrations hold no rows of their own). DELETE of
 * the few rows a test leaves costs the server far less than TRUNCATE's new files (a test's
 * emptying took a median 56 ms with TRUNCATE, about 40 % of the server's work in the suite).
 * `session_replication_role = replica` (superuser; the tests connect as one) keeps the
 * append-only ledger's trigger and the foreign keys' checks from firing, so order does not matter.
 */
const DELETE_ROWS = `DO $$ DECLARE t record; s record; BEGIN
  SET LOCAL session_replication_role = replica;
  FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations' LOOP
    EXECUTE format('DELETE FROM %I', t.tablename);
  END LOOP;
  FOR s IN SELECT sequencename FROM pg_sequences WHERE schemaname = 'public' AND last_value IS NOT NULL LOOP
    EXECUTE format('ALTER SEQUENCE %I RESTART', s.sequencename);
  END LOOP;
END $$;`;

async function createServerDatabase(serverUrl: string): Promise<FileDatabase> {
  const pooled = await takePooledDatabase(serverUrl);
  await pooled.admin.unsafe(TRUNCATE_USED_TABLES);
  return {
    url: pooled.url,
    // Four parts of the suite run at once (docs/testing.md), each may hold two instances of 6 + 2 (the hold
    // pool) connections: within the server's 100.
    maxConnections: 6,
    empty: async () => {
      await pooled.admin.unsafe(DELETE_ROWS);
    },
    close: () => pooled.release(),
  };
}

async function startPglite(): Promise<FileDatabase> {
  const { db, server } = await startMigratedPglite();
  return {
    url: server.url,
    maxConnections: 4,
    empty: async () => {
      await db.exec(DELETE_ROWS);
    },
    close: async () => {
      await server.close();
      await db.close();
    },
  };
}

const PGLITE_VERSION = import.meta.resolve("@electric-sql/pglite").match(/pglite[@/](\d[^/]*)/)?.[1] ??
  "unknown";

/**
 * A new PGlite with every migration applied, served: loaded from the copy of one kept between test
 * files (and runs) for this PGlite build and migration set when there is one, else made (`initdb`,
 * then the storage's `migrate()`) and copied. Most of a new PGlite's start-up is `initdb`, then
 * the migrations (about 0.2 s); a PGlite loaded from the copy skips both. The package is imported
 * only here: a run on a server (DATABASE_URL) never loads it.
 */
async function startMigratedPglite(): Promise<{ db: PGlite; server: PgliteServer }> {
  const { PGlite } = await import("@electric-sql/pglite");
  const path = `${tmpdir()}/fgw_test_pglite_${PGLITE_VERSION}_${await migrationSet()}.tar`;
  const copy = await Deno.readFile(path).catch(() => null);
  if (copy) {
    try {
      const db = await PGlite.create({ loadDataDir: new Blob([copy]) });
      return { db, server: new PgliteServer(db) };
    } catch {
      // An unreadable copy: make one afresh and replace it.
    }
  }
  const db = await PGlite.create();
  const server = new PgliteServer(db);
  await (await openPgStorage(server.url, { maxConnections: 1 })).close();
  await keepCopy(db, path).catch(() => {}); // without a copy, the next file makes its own
  return { db, server };
}

/** Keeps `db`'s data directory at `path`, and removes the copies of other builds and migration sets (40 MB each). */
async function keepCopy(db: PGlite, path: string): Promise<void> {
  const dump = new Uint8Array(await (await db.dumpDataDir("none")).arrayBuffer());
  // Written aside and renamed, so that a test file starting meanwhile never reads half a copy.
  const partial = `${path}.${crypto.randomUUID()}`;
  await Deno.writeFile(partial, dump);
  await Deno.rename(partial, path);
  for await (const entry of Deno.readDir(tmpdir())) {
    const other = `${tmpdir()}/${entry.name}`;
    if (/^fgw_test_pglite_.*\.tar$/.test(entry.name) && other !== path) {
      await Deno.remove(other).catch(() => {});
    }
  }
}
