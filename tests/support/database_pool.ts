import postgres, { type Sql } from "postgres";
import { hex } from "@scure/base";

/** A database of the pool, held by this test file until `release`. */
export interface PooledDatabase {
  url: string;
  /** A connection to it; the session that holds it (closing it releases the database). */
  admin: Sql;
  release(): Promise<void>;
}

/** Any constant: the advisory lock, taken in a pool database, that says a test file is using it. */
const IN_USE = 7_302_114_509;
/** More pool databases than test files ever run at once on one server: a bound, not a target. */
const MOST_SLOTS = 64;
const POOL_PREFIX = "fgw_test_pool_";
const DUPLICATE_DATABASE = "42P04";
const UNIQUE_VIOLATION = "23505";
const NO_SUCH_DATABASE = "3D000";

/**
 * A database on the server at `serverUrl` for this file alone, from a pool kept between test files
 * and runs: the first pool database whose in-use lock this file takes, else a new one. Making a
 * database per file cost about 0.6 s of the file's time on the server here (CREATE DATABASE,
 * 18 migrations, DROP): a pool database has its migrations applied once, by its first user's
 * storage (`migrate()` applies what is missing), and the tests empty it before each use. Pools
 * are per migration set (a hash of the migrations and the migrator), so a database is only ever
 * used with the schema it was migrated to; making a new one drops the idle pool databases of
 * other migration sets. The lock is a session lock in the pool database itself, so it holds
 * whichever database of the server DATABASE_URL names, and a file that dies releases it.
 */
export async function takePooledDatabase(serverUrl: string): Promise<PooledDatabase> {
  const prefix = `${POOL_PREFIX}${await migrationSet()}_`;
  const server = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await server<{ name: string }[]>`SELECT datname AS name FROM pg_database
      WHERE starts_with(datname, ${POOL_PREFIX})`;
    const existing = new Set(rows.map((row) => row.name));
    for (let slot = 0; slot < MOST_SLOTS; slot++) {
      const name = `${prefix}${slot}`;
      if (!existing.has(name)) await createPoolDatabase(server, name, [...existing]);
      const held = await holdOrRemake(server, serverUrl, name);
      if (held) return held;
    }
    throw new Error(`Every one of the ${MOST_SLOTS} pool databases is in use`);
  } finally {
    await server.end();
  }
}

/** The database `name` held by this file, or null when another file holds it. */
async function hold(serverUrl: string, name: string): Promise<PooledDatabase | null> {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const admin = postgres(url.toString(), { max: 1, onnotice: () => {} });
  try {
    const [row] = await admin<{ held: boolean }[]>`SELECT pg_try_advisory_lock(${IN_USE}) AS held`;
    if (!row?.held) {
      await admin.end();
      return null;
    }
    // Test data need not survive a server crash: commits of this database do not wait for the
    // disk (a quarter off the storage contract suite's time on a busy machine).
    await admin.unsafe(
      `ALTER DATABASE "${name}" SET synchronous_commit TO off; SET synchronous_commit TO off`,
    );
    return { url: url.toString(), admin, release: () => admin.end() };
  } catch (error) {
    await admin.end();
    throw error;
  }
}

/** `hold`, once more after making `name` again when another run dropped it meanwhile. */
async function holdOrRemake(server: Sql, serverUrl: string, name: string): Promise<PooledDatabase | null> {
  try {
    return await hold(serverUrl, name);
  } catch (error) {
    if (codeOf(error) !== NO_SUCH_DATABASE) throw error;
    await createPoolDatabase(server, name, []);
    return await hold(serverUrl, name);
  }
}

/**
 * Makes the empty database `name` (another file making it at the same moment is fine), and drops
 * the pool databases of other migration sets that nobody is connected to.
 */
async function createPoolDatabase(server: Sql, name: string, others: string[]): Promise<void> {
  try {
    await server.unsafe(`CREATE DATABASE "${name}"`);
  } catch (error) {
    if (codeOf(error) !== DUPLICATE_DATABASE && codeOf(error) !== UNIQUE_VIOLATION) throw error;
  }
  const set = name.slice(0, name.lastIndexOf("_") + 1);
  for (const other of others.filter((each) => !each.startsWith(set))) {
    await server.unsafe(`DROP DATABASE IF EXISTS "${other}"`).catch(() => {}); // in use: kept
  }
}

function codeOf(error: unknown): unknown {
  return error instanceof Error && "code" in error ? error.code : undefined;
}

/** A short hash of every migration file and the migrator: the schema a migrated database gets. */
export async function migrationSet(): Promise<string> {
  const dir = new URL("../../storage/postgres/migrations/", import.meta.url);
  const names = (await Array.fromAsync(Deno.readDir(dir))).filter((entry) => entry.isFile)
    .map((entry) => entry.name).toSorted();
  const texts = [await Deno.readTextFile(new URL("../../storage/postgres/migrate.ts", import.meta.url))];
  for (const name of names) texts.push(name, await Deno.readTextFile(new URL(name, dir)));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(texts.join("\0")));
  return hex.encode(new Uint8Array(digest)).slice(0, 12);
}
