import type { Logger } from "../kernel/mod.ts";
import { type Fence, type SyncAt, UpstreamSyncJob } from "../runtime/mod.ts";
import type { SettingStore } from "../../storage/setting_store.ts";
import { encodePriceRecord, PRICES_SETTING } from "./price_record.ts";
import { type Prices, type PriceSource, PriceSourceError } from "./price_source.ts";

/** While a source keeps failing, a `warn` line at most this often (the others at `debug`). */
export const FAILURE_WARN_EVERY_MS = 60 * 60_000;

export interface PricesSyncJobOptions {
  source: PriceSource;
  settings: SettingStore;
  log: Logger;
  /** `FGW_PRICES_SYNC_MS`. */
  intervalMs: number;
  /** First wait after a failed sync, doubled per failure up to `intervalMs`; default 15 s. */
  retryBaseMs?: number;
  /** After each recorded sync (the service refreshes its view). */
  afterSync?: () => Promise<unknown>;
}

/**
 * The periodic prices job (`prices-sync`), run by the scheduler under its lease: reads the source
 * and replaces the shared record with a write fenced by the run's lease, so a run that lost its
 * job cannot overwrite a newer one. A source that fails leaves the last record (prices and sync
 * time) as it is and the next attempt comes sooner (15 s, doubling up to the interval:
 * `UpstreamSyncJob`); the failure is logged without flooding the log: a `warn` line when failures
 * start and then at most hourly, `debug` otherwise, an `info` line when the source recovers.
 */
export class PricesSyncJob extends UpstreamSyncJob<Prices> {
  override readonly name = "prices-sync";
  readonly #options: PricesSyncJobOptions;
  #lastWarnAtMs = Number.NEGATIVE_INFINITY;
  #synced = false;

  constructor(options: PricesSyncJobOptions) {
    super(options);
    this.#options = options;
  }

  protected override read(signal: AbortSignal): Promise<Prices> {
    return this.#options.source.fetch(signal);
  }

  protected override isUpstreamFailure(error: unknown): error is PriceSourceError {
    return error instanceof PriceSourceError;
  }

  protected override record(prices: Prices, { nowMs, fence }: SyncAt): Promise<boolean> {
    const value = encodePriceRecord({ prices, source: this.#options.source.name, syncedAtMs: nowMs });
    return this.#options.settings.putFenced(PRICES_SETTING, { value, fence });
  }

  protected override failed(error: PriceSourceError, attempt: { failures: number; nowMs: number }): void {
    const { failures, nowMs } = attempt;
    const warn = failures === 1 || nowMs - this.#lastWarnAtMs >= FAILURE_WARN_EVERY_MS;
    if (warn) this.#lastWarnAtMs = nowMs;
    this.#options.log({
      level: warn ? "warn" : "debug",
      msg: "prices source unreachable; the last prices are kept",
      source: this.#options.source.name,
      reason: error.message,
      failures,
      nextAttemptInMs: this.intervalMs(),
    });
  }

  protected override notRecorded(_prices: Prices, fence: Fence): void {
    this.#options.log({ level: "warn", msg: "prices not recorded: a newer run holds the job", ...fence });
  }

  protected override recorded(prices: Prices, { failures }: { failures: number }): void {
    const recovered = failures > 0;
    const first = !this.#synced;
    this.#synced = true;
    this.#options.log({
      level: recovered || first ? "info" : "debug",
      msg: recovered ? "prices source recovered" : "prices synced",
      source: this.#options.source.name,
      ...(recovered ? { failures } : {}),
      prices,
    });
    this.#lastWarnAtMs = Number.NEGATIVE_INFINITY;
  }
}
