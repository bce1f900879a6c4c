import type { CatalogSnapshot } from "../catalog/mod.ts";
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
}

/** What `read` found: the predictions of the known ids in the order asked, and the unknown ids. */
export interface PredictionReads {
  items: CustomerPrediction[];
  missing: string[];
}

/**
 * Reads customer predictions: events from the catalog view, their stored predictions in one
 * storage call per batch, and the scores of the leaderboard view (built at most once a minute).
 */
export class PredictionReader {
  readonly #options: PredictionReaderOptions;
  readonly #scored = new WeakMap<Leaderboard, ScoredMiners>();

  constructor(options: PredictionReaderOptions) {
    this.#options = options;
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
    return { items: await this.predictionsOf(events), missing };
  }

  /** The predictions of `events`, in their order: one `eventDigests` call for all of them. */
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
