import type { CatalogSnapshot } from "../catalog/mod.ts";
import { type Clock, systemClock } from "../kernel/mod.ts";
import { DigestCache } from "./digest_cache.ts";
import type { Leaderboard } from "../scoring/mod.ts";
import type { AssignmentStore } from "../../storage/assignment_store.ts";
import type { PredictionDigest } from "../../storage/assignment_record.ts";
import type { EventRecord } from "../../storage/event_record.ts";
import { type CustomerPrediction, customerPrediction, type ScoredMiners } from "./customer_prediction.ts";

export interface PredictionReaderOptions {
  /** The catalog this instance serves (events by id). */
  catalog: { current(): CatalogSnapshot };
  assignments: Pick<AssignmentStore, "eventDigests">;
  /**
   * The instance's leaderboard (`LeaderboardView`): its neurons are the current (hotkey, uid)
   * registrations of forecasting miners with their score-table scores.
   */
  leaderboard: { current(): Promise<Leaderboard> };
  /**
   * How long an event's stored predictions, once read, answer `read` from memory
   * (`FGW_PREDICTIONS_CACHE_MS`; 0 reads storage every time). `predictionsOf` always reads storage.
   */
  cacheMs?: number;
  /** Most events whose predictions are kept in memory (default 50,000). */
  maxCachedEvents?: number;
  clock?: Clock;
}

/** A rendered prediction and what it was rendered from: reused while all three are the same objects. */
interface Rendered {
  event: EventRecord;
  scored: ScoredMiners;
  prediction: CustomerPrediction;
  /** `prediction` as JSON, made the first time it is asked for. */
  json?: string;
}

/** What `read` found: the predictions of the known ids in the order asked, and the unknown ids. */
export interface PredictionReads {
  items: CustomerPrediction[];
  missing: string[];
}

/**
 * Reads customer predictions: events from the catalog view, their stored predictions (kept in
 * memory for `cacheMs`; the events a batch lacks read in one storage call), and the scores of the
 * leaderboard view (built at most once a minute). A prediction is computed again only when its
 * event, its stored predictions or the scores changed.
 */
export class PredictionReader {
  readonly #options: PredictionReaderOptions;
  readonly #scored = new WeakMap<Leaderboard, ScoredMiners>();
  readonly #cache: DigestCache;
  readonly #rendered = new WeakMap<readonly PredictionDigest[], Rendered>();

  constructor(options: PredictionReaderOptions) {
    this.#options = options;
    this.#cache = new DigestCache({
      read: (ids) => options.assignments.eventDigests(ids),
      ttlMs: options.cacheMs ?? 0,
      maxEvents: options.maxCachedEvents ?? 50_000,
      clock: options.clock ?? systemClock,
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
    if (events.length === 0) return { items: [], missing };
    const [digests, scored] = await Promise.all([
      this.#cache.digestsOf(events.map((event) => event.id)),
      this.#scoredMiners(),
    ]);
    const items = events.map((event) => this.#render(event, digests.get(event.id)!, scored));
    return { items, missing };
  }

  /**
   * The prediction of event `id` as JSON (the single-event read): written out once per rendering,
   * however often it is read. Undefined when the event is unknown.
   */
  async json(id: string): Promise<string | undefined> {
    const event = this.event(id);
    if (!event) return undefined;
    const [digests, scored] = await Promise.all([this.#cache.digestsOf([id]), this.#scoredMiners()]);
    const rendered = this.#rendering(event, digests.get(id)!, scored);
    rendered.json ??= JSON.stringify(rendered.prediction);
    return rendered.json;
  }

  #render(
    event: EventRecord,
    digests: readonly PredictionDigest[],
    scored: ScoredMiners,
  ): CustomerPrediction {
    return this.#rendering(event, digests, scored).prediction;
  }

  /** The prediction of `event`, reused when it was last rendered from the same three objects. */
  #rendering(event: EventRecord, digests: readonly PredictionDigest[], scored: ScoredMiners): Rendered {
    const last = this.#rendered.get(digests);
    if (last && last.event === event && last.scored === scored) return last;
    const rendered: Rendered = { event, scored, prediction: customerPrediction(event, digests, scored) };
    this.#rendered.set(digests, rendered);
    return rendered;
  }

  /** The predictions of `events`, in their order, from storage (never the cache): one `eventDigests` call. */
  async predictionsOf(events: readonly EventRecord[]): Promise<CustomerPrediction[]> {
    if (events.length === 0) return [];
    const [digests, scored] = await Promise.all([
      this.#options.assignments.eventDigests(events.map((event) => event.id)),
      this.#scoredMiners(),
    ]);
    const byEvent = Map.groupBy(digests, (digest: PredictionDigest) => digest.eventId);
    return events.map((event) => customerPrediction(event, byEvent.get(event.id) ?? [], scored));
  }

  async #scoredMiners(): Promise<ScoredMiners> {
    const board = await this.#options.leaderboard.current();
    let scored = this.#scored.get(board);
    if (!scored) {
      scored = {
        miners: board.neurons.map((n) => ({ hotkey: n.hotkey, uid: n.uid, score: n.scoring.score })),
        computedAt: board.scoringMeta.computedAt,
      };
      this.#scored.set(board, scored);
    }
    return scored;
  }
}
