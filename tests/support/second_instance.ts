import type { Storage } from "../../storage/storage.ts";
import type { AdapterUnderTest } from "./adapters.ts";

/**
 * The storage handle a second service instance would use: a new handle on the same store when the
 * adapter supports several connections, else (embedded PGlite serves one connection) the same
 * handle, which still gives the second instance its own actors, holder name and caches.
 */
export async function secondInstanceStorage(adapter: AdapterUnderTest): Promise<Storage> {
  if (adapter.concurrent) return await adapter.openAnother();
  console.log(
    `${adapter.kind}: one connection only (embedded PGlite), so both instances share one handle; ` +
      "set DATABASE_URL to race two connections",
  );
  return adapter.storage;
}
