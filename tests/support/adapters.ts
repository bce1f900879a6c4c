import type { Storage } from "../../storage/storage.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { openPgStorage } from "../../storage/postgres/pg_storage.ts";
import { openTestDatabase, type TestDatabase } from "./test_postgres.ts";

/** A fresh storage of one adapter kind, with a way to open a second handle on the same data. */
export interface AdapterUnderTest {
  kind: "kv" | "postgres";
  storage: Storage;
  /** True when several connections can race (KV in one process; Postgres on a real server). */
  concurrent: boolean;
  /** Opens another handle on the same store, as a second service instance would. */
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
    concurrent: true,
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
  const db: TestDatabase = await openTestDatabase();
  const handles: Storage[] = [await openPgStorage(db.url, { maxConnections: db.maxConnections })];
  return {
    kind: "postgres",
    storage: handles[0]!,
    concurrent: db.real,
    openAnother: async () => {
      const another = await openPgStorage(db.url, { maxConnections: db.maxConnections });
      handles.push(another);
      return another;
    },
    dispose: async () => {
      for (const handle of handles) await handle.close();
      await db.close();
    },
  };
}

/**
 * Registers `Deno.test("<name> [kv]")` and `Deno.test("<name> [postgres]")`: the one contract
 * suite that every storage adapter must pass. Each run gets a fresh, empty store.
 */
export function adapterTest(name: string, fn: (adapter: AdapterUnderTest) => Promise<void>): void {
  for (const open of [openKv, openPg]) {
    const kind = open === openKv ? "kv" : "postgres";
    Deno.test({
      name: `${name} [${kind}]`,
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
