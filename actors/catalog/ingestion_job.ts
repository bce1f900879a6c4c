import type { Clock } from "../kernel/mod.ts";
import type { EventMessages, ObserveReply } from "./event_actor.ts";
import type { Logger } from "../kernel/mod.ts";
import { eventIdFor } from "./market_admission.ts";
import type { ActorKind, ActorSystem } from "../runtime/mod.ts";
import type { JobRun, PeriodicJob } from "../runtime/mod.ts";
import {
  type MalformedMarket,
  type MarketSource,
  MarketSourceError,
  type SourceMarket,
} from "./sources/market_source.ts";
import type { EventStore } from "../../storage/event_store.ts";

export interface IngestionOptions {
  source: MarketSource;
  /**
   * Read once when the source is unreachable and the catalog is still empty (offline start). Its
   * markets must carry their own source name: they are retired after the source's next full pass.
   */
  fallback?: MarketSource;
  /**
   * The source name of sample markets to retire once the source answers a full pass: the
   * fallback's by default. Set without a fallback when the fallback is off (snapshot mode), so the
   * sample copies an earlier offline start left in storage are retired all the same.
   */
  sampleSource?: string;
  actors: ActorSystem;
  /** The EventActor kind, registered with `actors`. */
  eventKind: ActorKind<EventMessages>;
  store: EventStore;
  clock: Clock;
  log: Logger;
  intervalMs: number;
  maxBackoffMs: number;
  /**
   * Called after every pass that read a source (to refresh the catalog view), with the run's lease:
   * a record of the pass is written fenced by it, so a run that lost its job cannot overwrite it.
   */
  afterPass?: (run: JobRun) => Promise<unknown>;
  /**
   * Told once per event and instance when the source reports a settlement that contradicts the
   * event's settled one (which is final: kept, and never re-scored); it is also logged.
   */
  onSettlementContradicted?: (eventId: string) => void;
}

/** Malformed markets an instance remembers having logged; past this many it starts afresh. */
const MAX_REPORTED_MALFORMED = 10_000;

/** What one pass did. */
export interface PassStats {
  source: string;
  pages: number;
  seen: number;
  /** Markets skipped because they cannot be decoded (each logged once per instance, with why). */
  malformed: number;
  admitted: number;
  updated: number;
  unchanged: number;
  refused: number;
  /** Markets whose write failed (logged; the pass goes on and the next pass tries again). */
  failed: number;
}

/**
 * Periodic market ingestion: reads every page of the source and hands each market to its
 * EventActor. An unreachable source backs off exponentially and the catalog keeps serving.
 */
export class MarketIngestionJob implements PeriodicJob {
  readonly name = "market-ingestion";
  readonly #options: IngestionOptions;
  #failures = 0;
  #completedPasses = 0;
  /** Events whose contradiction this instance already reported. */
  readonly #reportedContradictions = new Set<string>();
  /** Malformed markets (source, id and reason) this instance already logged. */
  readonly #reportedMalformed = new Set<string>();

  constructor(options: IngestionOptions) {
    this.#options = options;
  }

  /** Passes completed by this instance (from the source or the fallback). */
  get completedPasses(): number {
    return this.#completedPasses;
  }

  intervalMs(): number {
    const { intervalMs, maxBackoffMs } = this.#options;
    return this.#failures === 0 ? intervalMs : Math.min(intervalMs * 2 ** this.#failures, maxBackoffMs);
  }

  async run(_nowMs: number, run: JobRun): Promise<void> {
    const { source, log } = this.#options;
    const { signal } = run;
    try {
      const stats = await this.pass(source, signal);
      this.#failures = 0;
      log({ level: "info", msg: "market ingestion pass", ...stats });
      await this.#retireFallback();
    } catch (error) {
      if (signal?.aborted) return;
      if (!(error instanceof MarketSourceError)) throw error;
      this.#failures++;
      log({
        level: "warn",
        msg: "market source unreachable; the catalog keeps serving its last data",
        source: source.name,
        reason: error.message,
        nextAttemptInMs: this.intervalMs(),
      });
      await this.#fallBack(signal);
    }
    await this.#options.afterPass?.(run);
  }

  /** Reads every page of `source` once; throws MarketSourceError if a page cannot be read. */
  async pass(source: MarketSource, signal?: AbortSignal): Promise<PassStats> {
    const stats: PassStats = {
      source: source.name,
      pages: 0,
      seen: 0,
      malformed: 0,
      admitted: 0,
      updated: 0,
      unchanged: 0,
      refused: 0,
      failed: 0,
    };
    let cursor: string | null = null;
    do {
      signal?.throwIfAborted();
      const page = await source.fetchPage(cursor, signal);
      stats.pages++;
      stats.malformed += page.malformed.length;
      this.#reportMalformed(source.name, page.malformed);
      const replies = await Promise.allSettled(page.markets.map((market) => this.#observe(market, signal)));
      replies.forEach((reply, index) => this.#count(stats, reply, page.markets[index]!));
      stats.seen += page.markets.length;
      cursor = page.nextCursor;
    } while (cursor !== null);
    this.#completedPasses++;
    return stats;
  }

  #count(stats: PassStats, reply: PromiseSettledResult<ObserveReply>, market: SourceMarket): void {
    if (reply.status === "fulfilled") {
      stats[reply.value.outcome]++;
      if (reply.value.contradiction) this.#reportContradiction(market, reply.value.contradiction);
      return;
    }
    stats.failed++;
    if (stats.failed <= 3) {
      this.#options.log({ level: "error", msg: "cannot apply a market", error: String(reply.reason) });
    }
  }

  /**
   * Logs a malformed market once per instance and reason, naming it and why it cannot be decoded:
   * it is skipped, so a new market stays out of the catalog and an admitted one keeps its last
   * state (unresolved, say) until the source serves it well-formed (docs/events.md).
   */
  #reportMalformed(source: string, malformed: readonly MalformedMarket[]): void {
    for (const { sourceMarketId, reason } of malformed) {
      const key = JSON.stringify([source, sourceMarketId, reason]);
      if (this.#reportedMalformed.has(key)) continue;
      if (this.#reportedMalformed.size >= MAX_REPORTED_MALFORMED) this.#reportedMalformed.clear();
      this.#reportedMalformed.add(key);
      this.#options.log({
        level: "warn",
        msg: "malformed market skipped: the catalog keeps its last state of it",
        source,
        sourceMarketId,
        eventId: sourceMarketId === null ? null : eventIdFor(source, sourceMarketId),
        reason,
      });
    }
  }

  #reportContradiction(
    market: SourceMarket,
    contradiction: NonNullable<ObserveReply["contradiction"]>,
  ): void {
    const eventId = eventIdFor(market.source, market.sourceMarketId);
    if (this.#reportedContradictions.has(eventId)) return;
    this.#reportedContradictions.add(eventId);
    this.#options.log({
      level: "warn",
      msg: "source contradicts a settled resolution; the settled one is kept",
      eventId,
      ...contradiction,
    });
    this.#options.onSettlementContradicted?.(eventId);
  }

  async #observe(market: SourceMarket, signal: AbortSignal | undefined): Promise<ObserveReply> {
    const { actors, eventKind } = this.#options;
    const id = eventIdFor(market.source, market.sourceMarketId);
    return await actors.ask(eventKind, id, { type: "observe", market }, signal ? { signal } : {});
  }

  /**
   * Once the source has answered a full pass, no sample market of the fallback stays in the catalog
   * (retired, so every instance's view drops it). Idempotent: a later pass finds none to retire.
   */
  async #retireFallback(): Promise<void> {
    const { fallback, source, store, clock, log } = this.#options;
    const sample = this.#options.sampleSource ?? fallback?.name;
    if (sample === undefined || sample === source.name) return;
    const retired = await store.retireSource(sample, clock());
    if (retired === 0) return;
    log({
      level: "info",
      msg: "live source answered: the offline snapshot's sample events are retired from the catalog",
      source: source.name,
      retiredSource: sample,
      retired,
    });
  }

  async #fallBack(signal?: AbortSignal): Promise<void> {
    const { fallback, store, log } = this.#options;
    if (!fallback || (await store.count()) > 0) return;
    const stats = await this.pass(fallback, signal);
    log({
      level: "info",
      msg: "catalog loaded from the snapshot while the live source is unreachable",
      ...stats,
    });
  }
}
