import type { Clock } from "../kernel/mod.ts";
import type { SettingStore } from "../../storage/setting_store.ts";
import { decodePriceRecord, type PriceRecord, PRICES_SETTING } from "./price_record.ts";
import type { Prices } from "./price_source.ts";

/** Syncs missed before the prices count as stale (as the metagraph's). */
export const PRICES_STALE_AFTER_INTERVALS = 3;

/** What the service shows now. */
export interface CurrentPrices {
  /** The last prices read by any instance, or null before the first successful sync. */
  prices: Prices | null;
  /** When that sync ran, or null. */
  syncedAtMs: number | null;
  /** True before the first sync and once the last one is older than 3 sync intervals. */
  stale: boolean;
}

export interface PriceViewOptions {
  settings: SettingStore;
  clock: Clock;
  /** The prices job's interval (`FGW_PRICES_SYNC_MS`). */
  intervalMs: number;
}

/**
 * One instance's in-memory view of the latest prices, refreshed from storage (whichever instance
 * ran the job). `current()` is synchronous; its stale flag is computed at each call.
 */
export class PriceView {
  readonly #options: PriceViewOptions;
  #record: PriceRecord | null = null;

  constructor(options: PriceViewOptions) {
    this.#options = options;
  }

  /** Reads the stored record; a missing one leaves the view as it is, a malformed one throws. */
  async refresh(): Promise<void> {
    const value = await this.#options.settings.get(PRICES_SETTING);
    if (value === null) return;
    this.#record = decodePriceRecord(value);
  }

  current(): CurrentPrices {
    const record = this.#record;
    if (!record) return { prices: null, syncedAtMs: null, stale: true };
    const { clock, intervalMs } = this.#options;
    const stale = clock() - record.syncedAtMs > PRICES_STALE_AFTER_INTERVALS * intervalMs;
    return { prices: record.prices, syncedAtMs: record.syncedAtMs, stale };
  }
}
