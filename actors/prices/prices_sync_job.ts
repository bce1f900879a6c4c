import type { Logger } from "../kernel/mod.ts";
import { FailureBackoff, type JobRun, type PeriodicJob } from "../runtime/mod.ts";
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
 * time) as it is and the next attempt comes sooner (15 s, doubling up to the interval); the
 * failure is logged without flooding the log: a `warn` line when failures start and then at most
 * hourly, `debug` otherwise, an `info` line when the source recovers.
 */
export class PricesSyncJob implements PeriodicJob {
  readonly name = "prices-sync";
  readonly #options: PricesSyncJobOptions;
  readonly #backoff: FailureBackoff;
  #lastWarnAtMs = Number.NEGATIVE_INFINITY;
  #synced = false;

  constructor(options: PricesSyncJobOptions) {
    this.#options = options;
    this.#backoff = new FailureBackoff(options.intervalMs, { retryBaseMs: options.retryBaseMs });
  }

  /** Runs failed in a row since the last successful sync of this instance. */
  get failures(): number {
    return this.#backoff.failures;
  }

  intervalMs(): number {
    return this.#backoff.nextMs();
  }

  async run(nowMs: number, { signal, fence }: JobRun): Promise<void> {
    const { source, settings, log } = this.#options;
    let prices: Prices;
    try {
      prices = await source.fetch(signal);
    } catch (error) {
      if (signal.aborted) return;
      if (!(error instanceof PriceSourceError)) throw error;
      this.#failed(nowMs, error);
      return;
    }
    const value = encodePriceRecord({ prices, source: source.name, syncedAtMs: nowMs });
    if (!(await settings.putFenced(PRICES_SETTING, { value, fence }))) {
      log({ level: "warn", msg: "prices not recorded: a newer run holds the job", ...fence });
      return;
    }
    this.#succeeded(prices);
    await this.#options.afterSync?.();
  }

  #failed(nowMs: number, error: PriceSourceError): void {
    const failures = this.#backoff.failed();
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

  #succeeded(prices: Prices): void {
    const failures = this.#backoff.failures;
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
    this.#backoff.succeeded();
    this.#lastWarnAtMs = Number.NEGATIVE_INFINITY;
  }
}
