import type { Config } from "./config.ts";
import type { Storage } from "../../storage/storage.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { openPgStorage } from "../../storage/postgres/pg_storage.ts";

/** Opens the configured storage adapter (creating the KV data directory when needed). */
export async function openStorage(config: Config): Promise<Storage> {
  if (config.FGW_STORAGE === "postgres") {
    return await openPgStorage(config.DATABASE_URL!, { maxConnections: config.FGW_PG_POOL });
  }
  await Deno.mkdir(config.FGW_DATA_DIR, { recursive: true });
  return await openKvStorage(`${config.FGW_DATA_DIR}/fgw.sqlite`);
}
