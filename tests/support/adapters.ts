import type { Storage } from "../../storage/storage.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { openPgStorage } from "../../storage/postgres/pg_storage.ts";
import { openTestDatabase, realPostgres } from "./test_postgres.ts";

/** A fresh storage of one adapter kind, with a way to open a second handle on the same data. */
export interface AdapterUnderTest {
  kind: "kv" | "postgres";
  storage: Storage;
  /**
   * Opens another handle on the same store (its own KV handle or its own connection pool), as a
   * second service instance would. Closed with the store at the end of the test.
   */
  openAnother(): Promise<Storage>;
}

/** Opens a fresh KV store on a temporary file (so a second handle can share it). */
async function openKv(): Promise<AdapterUnderTest & { dispose(): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "fgw_kv_" });
  const path = `${dir}/store.sqlite`;
  const handles: Storage[] = [await openKvStorage(path)];
  return {
    kind: "kv",
    storage: handles[0]!,
    openAnother: async () => {
      const another = await openKvStorage(path);
      handles.push(another);
      return another;
    },
    dispose: async () => {
      for (const handle of handles) await handle.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function openPg(): Promise<AdapterUnderTest & { dispose(): Promise<void> }> {
  const db = await openTestDatabase();
  const handles: Storage[] = [];
  try {
    handles.push(await openPgStorage(db.url, { maxConnections: db.maxConnections }));
  } catch (error) {
    await db.close();
    throw error;
  }
  return {
    kind: "postgres",
    storage: handles[0]!,
    openAnother: async () => {
      const another = await openPgStorage(db.url, { maxConnections: db.maxConnections });
      handles.push(another);
      return another;
    },
    dispose: async () => {
      try {
        for (const handle of handles) await handle.close();
      } finally {
        await db.close();
      }
    },
  };
}

export interface AdapterTestOptions {
  /**
   * "concurrency": the test races requests or storage calls against each other (on one handle or
   * on two instances): its point is what the store does when they meet (row-lock waits, concurrent
   * upserts, conditional writes, racing transactions). The embedded PGlite runs one statement, and a
   * connection's transaction, at a time, so without DATABASE_URL the PostgreSQL variant is
   * registered as ignored, with the reason in its name, instead of passing without having raced
   * anything. The KV variant always runs: calls on KV handles interleave their reads and checked
   * commits, so a racing commit can lose its check there as on a server.
   */
  needs?: "concurrency";
  /** Why both variants are ignored on this machine (e.g. `SANDBOX_IGNORED`), or null to run them. */
  ignoredBecause?: string | null;
}

/** The suffix of an ignored PostgreSQL variant's name: why it did not run. */
const NEEDS_CONCURRENCY = "(ignored: needs DATABASE_URL, the embedded PGlite runs one statement at a time)";

type AdapterTestFn = (adapter: AdapterUnderTest) => Promise<void>;

/**
 * Registers `Deno.test("<name> [kv]")` and `Deno.test("<name> [postgres]")`: the one contract
 * suite that every storage adapter must pass. Each run gets a fresh, empty store.
 */
export function adapterTest(name: string, fn: AdapterTestFn): void;
export function adapterTest(name: string, options: AdapterTestOptions, fn: AdapterTestFn): void;
export function adapterTest(
  name: string,
  optionsOrFn: AdapterTestOptions | AdapterTestFn,
  maybeFn?: AdapterTestFn,
): void {
  const [options, fn] = typeof optionsOrFn === "function" ? [{}, optionsOrFn] : [optionsOrFn, maybeFn!];
  for (const [kind, open] of [["kv", openKv], ["postgres", openPg]] as const) {
    const reason = options.ignoredBecause
      ? `(ignored: ${options.ignoredBecause})`
      : kind === "postgres" && options.needs === "concurrency" && !realPostgres
      ? NEEDS_CONCURRENCY
      : null;
    Deno.test({
      name: reason ? `${name} [${kind}] ${reason}` : `${name} [${kind}]`,
      ignore: reason !== null,
      sanitizeResources: false,
      sanitizeOps: false,
      fn: async () => {
        const adapter = await open();
        try {
          await fn(adapter);
        } finally {
          await adapter.dispose();
        }
      },
    });
  }
}
