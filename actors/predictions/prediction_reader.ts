import type { CatalogSnapshot } from "../catalog/mod.ts";
import { type Clock, systemClock } from "../kernel/mod.ts";
import type { Leaderboard } from "../scoring/mod.ts";
import type { AssignmentStore } from "../../storage/assignment_store.ts";
import type { BillingStore } from "../../storage/billing_store.ts";
import type { PredictionDigest } from "../../storage/assignment_record.ts";
import type { EventRecord } from "../../storage/event_record.ts";
import {
  consensusOf,
  type CustomerPrediction,
  customerPrediction,
  type ScoredMiners,
  shownPredictionIds,
} from "./customer_prediction.ts";
import { DigestReads } from "./digest_reads.ts";
import { type CachedPrediction, PredictionCache } from "./prediction_cache.ts";

/**
 * How far before the previous poll each poll of the changed events reaches back: covers clocks of
 * instances that differ by less than this, a prediction committed a moment after its receipt time,
 * and a read that raced a poll (its entry is forgotten again by the next poll).
 */
export const CHANGE_POLL_OVERLAP_MS = 30_000;

export interface PredictionReaderOptions {
  /** The catalog this instance serves (events by id). */
  catalog: { current(): CatalogSnapshot };
  assignments: Pick<AssignmentStore, "eventDigests" | "eventsPredictedSince">;
  /** The usage records: the LLM calls of the miner rows' leases, one read per rendering. */
  billing: Pick<BillingStore, "leaseUsage">;
  /**
   * The instance's leaderboard (`LeaderboardView`): its neurons are the current (hotkey, uid)
   * registrations of forecasting miners with their score-table scores.
   */
  leaderboard: { current(): Promise<Leaderboard> };
  /**
   * The longest a rendered prediction answers `read` and `json` from memory
   * (`FGW_PREDICTIONS_CACHE_MS`; 0 reads storage every time). `predictionsOf` always reads storage.
   */
  cacheMs?: number;
  /** Most events whose rendered predictions are kept (default 50,000). */
  maxCachedEvents?: number;
  clock?: Clock;
}

/** What `read` found: the predictions of the known ids in the order asked, and the unknown ids. */
export interface PredictionReads {
  items: CustomerPrediction[];
  missing: string[];
}

/**
 * Reads customer predictions: events from the catalog view, the scores of the leaderboard view
 * (built at most once a minute), and the events' stored predictions — read only for predictions
 * not in the cache (the events a request lacks in one storage call). A cached prediction answers
 * while its event and scores are unchanged, until `pollChanges` learns that a prediction was
 * stored for its event, and for at most `cacheMs` (docs/predictions.md "Freshness").
 */
export class PredictionReader {
  readonly #options: PredictionReaderOptions;
  readonly #scored = new WeakMap<Leaderboard, ScoredMiners>();
  readonly #reads: DigestReads;
  readonly #cache: PredictionCache;
  readonly #clock: Clock;
  #polledAtMs: number | null = null;
  #lastScored: ScoredMiners | null = null;

  constructor(options: PredictionReaderOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#reads = new DigestReads((ids) => options.assignments.eventDigests(ids));
    this.#cache = new PredictionCache({
      ttlMs: options.cacheMs ?? 0,
      maxEvents: options.maxCachedEvents ?? 50_000,
      clock: this.#clock,
    });
  }

  /** The catalog event `id`, or undefined when it is unknown (or retired). */
  event(id: string): EventRecord | undefined {
    return this.#options.catalog.current().byId(id)?.event;
  }

  /** The predictions of `eventIds` (distinct) in the order asked; ids the catalog lacks are `missing`. */
  async read(eventIds: readonly string[]): Promise<PredictionReads> {
    const snapshot = this.#options.catalog.current();
    const events: EventRecord[] = [];
    const missing: string[] = [];
    for (const id of eventIds) {
      const found = snapshot.byId(id);
      if (found) events.push(found.event);
      else missing.push(id);
    }
    const entries = await this.#entries(events);
    return { items: entries.map((entry) => entry.prediction), missing };
  }

  /**
   * The prediction of event `id` as JSON (the single-event read), written out once per rendering
   * however often it is read; undefined when the event is unknown.
   */
  async json(id: string): Promise<string | undefined> {
    const event = this.event(id);
    if (!event) return undefined;
    const [entry] = await this.#entries([event]);
    entry!.json ??= JSON.stringify(entry!.prediction);
    return entry!.json;
  }

  /** The predictions of `events`, in their order, from storage (never the cache): one `eventDigests` call. */
  async predictionsOf(events: readonly EventRecord[]): Promise<CustomerPrediction[]> {
    if (events.length === 0) return [];
    const [digests, scored] = await Promise.all([
      this.#options.assignments.eventDigests(events.map((event) => event.id)),
      this.#scoredMiners(),
    ]);
    const byEvent = Map.groupBy(digests, (digest: PredictionDigest) => digest.eventId);
    return await this.#render(events, (event) => byEvent.get(event.id) ?? [], scored);
  }

  /**
   * Forgets the cached predictions of the events predicted since the previous poll (less
   * `CHANGE_POLL_OVERLAP_MS`): one storage call. The service runs it every `FGW_PREDICTIONS_POLL_MS`.
   */
  async pollChanges(): Promise<number> {
    const startedAtMs = this.#clock();
    const sinceMs = (this.#polledAtMs ?? startedAtMs) - CHANGE_POLL_OVERLAP_MS;
    const changed = await this.#options.assignments.eventsPredictedSince(sinceMs);
    this.#cache.invalidate(changed);
    this.#polledAtMs = startedAtMs;
    return changed.length;
  }

  /** The cache entries of `events`, rendering (after one storage read) those it lacks. */
  async #entries(events: readonly EventRecord[]): Promise<CachedPrediction[]> {
    if (events.length === 0) return [];
    const scored = await this.#scoredMiners();
    const entries = events.map((event) => this.#cache.get(event, scored));
    const lacking = events.filter((_, index) => !entries[index]);
    if (lacking.length === 0) return entries as CachedPrediction[];
    const digests = await this.#reads.digestsOf(lacking.map((event) => event.id));
    const rendered = await this.#render(lacking, (event) => digests.get(event.id)!, scored);
    let next = 0;
    return events.map((event, index) => {
      const kept = entries[index];
      if (kept) return kept;
      const entry = { event, scored, prediction: rendered[next++]! };
      this.#cache.set(entry);
      return entry;
    });
  }

  /**
   * The customer predictions of `events` from their digests: the consensus of each, then the LLM
   * usage of every shown miner row's lease in one storage call.
   */
  async #render(
    events: readonly EventRecord[],
    digestsOf: (event: EventRecord) => readonly PredictionDigest[],
    scored: ScoredMiners,
  ): Promise<CustomerPrediction[]> {
    const consensus = events.map((event) => consensusOf(event, digestsOf(event), scored));
    const ids = shownPredictionIds(consensus);
    const usage = await this.#options.billing.leaseUsage(ids);
    return events.map((event, index) => customerPrediction(event, consensus[index]!, usage));
  }

  /**
   * The board's registrations and scores. A board rebuilt with the same ones (the view rebuilds it
   * every minute) gives the same object as before, so the cached predictions stay valid.
   */
  async #scoredMiners(): Promise<ScoredMiners> {
    const board = await this.#options.leaderboard.current();
    let scored = this.#scored.get(board);
    if (!scored) {
      const built = {
        miners: board.neurons.map((n) => ({ hotkey: n.hotkey, uid: n.uid, score: n.scoring.score })),
        computedAt: board.scoringMeta.computedAt,
      };
      scored = this.#lastScored && sameScores(this.#lastScored, built) ? this.#lastScored : built;
      this.#scored.set(board, scored);
      this.#lastScored = scored;
    }
    return scored;
  }
}

function sameScores(a: ScoredMiners, b: ScoredMiners): boolean {
  return a.computedAt === b.computedAt && a.miners.length === b.miners.length &&
    a.miners.every((m, i) => {
      const other = b.miners[i]!;
      return m.hotkey === other.hotkey && m.uid === other.uid && m.score === other.score;
    });
}
