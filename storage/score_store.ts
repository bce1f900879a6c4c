import type { Fence } from "./job_lease_store.ts";

/** One stored prediction of a scored event, as the scoring job scored it. */
export interface ScoredPredictionRecord {
  agentPredictionId: string;
  eventId: string;
  minerHotkey: string;
  minerUid: number;
  /** The server's receipt time. */
  predictedAtMs: number;
  /** The event's resolution time (a copy: the score table's window selects on it). */
  resolvedAtMs: number;
  /** The latest prediction of its (hotkey, uid) on the event: the row the event and the table use. */
  counted: boolean;
  /** Every validity rule it fails, decided at scoring against the resolution (empty: valid). */
  reasons: string[];
  /** Null unless valid. */
  pWin: number | null;
  brier: number | null;
  called: boolean | null;
  marketBrier: number | null;
  /** p′ of the predicted outcome (the per-miner calibration's q); null unless valid. */
  pPredicted: number | null;
  /**
   * What the per-miner roi's stake of 1 returns; null unless valid and staked (docs/scoring.md, "Per miner",
   * `roi`).
   */
  stakeReturn: number | null;
}

/** What the score table reads of a counted row (the per-miner formulas' values). */
export type WindowRow = Pick<
  ScoredPredictionRecord,
  | "eventId"
  | "minerHotkey"
  | "minerUid"
  | "resolvedAtMs"
  | "brier"
  | "marketBrier"
  | "called"
  | "pPredicted"
  | "stakeReturn"
>;

/** The "Per event" statistics of docs/scoring.md, over the counted rows. */
export interface ScoredEventStats {
  scored: number;
  valid: number;
  meanBrier: number | null;
  calledRate: number | null;
  bestUid: number | null;
}

/** A resolved event the scoring job scored, with what the scorer and `/v1/events/scored` need. */
export interface ScoredEventRecord {
  eventId: string;
  source: string;
  sourceMarketId: string;
  question: string;
  outcomes: { outcomeId: string; name: string }[];
  endDate: string;
  outcomePricesAtAdmission: Record<string, number>;
  resolvedAtMs: number;
  winningOutcomeId: string;
  /** When a scoring run last changed this event's rows. */
  scoredAtMs: number;
  marketPWinAtAdmission: number;
  stats: ScoredEventStats;
}

/** Why a miner's score is what it is (docs/scoring.md, "Per miner", `gate`). */
export type ScoringGate = "no_predictions" | "invalid_rate" | "min_predictions" | "pass";

/**
 * A miner's row of the score table (the leaderboard's `scoring`), key order as published.
 * `MinerScoring` in `actors/scoring` is this type.
 */
export interface StoredMinerScoring {
  score: number;
  raw: number;
  accuracy: number;
  calibration: number;
  edge: number;
  brier: number;
  weightedBrier: number;
  roi: number;
  preds: number;
  validPreds: number;
  invalidPreds: number;
  rho: number;
  effN: number;
  ageHours: number;
  gate: ScoringGate;
}

/** One (hotkey, uid) registration's row of the score table. */
export interface ScoreTableRow {
  hotkey: string;
  uid: number;
  firstSeenAtMs: number;
  scoring: StoredMinerScoring;
  /** The score before rounding: payout shares are taken of it (docs/scoring.md, "Payouts"). */
  unroundedScore: number;
}

/** The score table one scoring run computed. */
export interface ScoreTable {
  /** The start of the run's interval (docs/scoring.md, "The scoring job"). */
  computedAtMs: number;
  windowDays: number;
  /** Ordered by uid. */
  rows: ScoreTableRow[];
}

/** Keyset position in the scored-events list: the last event of the previous page. */
export interface ScoredEventPosition {
  resolvedAtMs: number;
  eventId: string;
}

export interface ListScoredEventsOptions {
  limit: number;
  after?: ScoredEventPosition;
  /** Only events where this hotkey has a counted row (under `uid` only, when given). */
  miner?: { hotkey: string; uid?: number };
}

/**
 * A page of the counted rows of events resolved in (`resolvedAfterMs`, `resolvedUntilMs`]: at
 * most `events` events after `after`, by ascending (resolvedAtMs, eventId).
 */
export interface WindowPage {
  resolvedAfterMs: number;
  resolvedUntilMs: number;
  after?: ScoredEventPosition;
  events: number;
}

/** Whose rows `minerRows` reads: a hotkey under any uid, or one (hotkey, uid) registration. */
export interface MinerRowsOf {
  hotkey: string;
  uid?: number;
}

/** The events `minerRows` reads: those resolved in (`resolvedAfterMs`, `resolvedUntilMs`]. */
export interface ResolvedWindow {
  resolvedAfterMs: number;
  resolvedUntilMs: number;
}

/** One event's scoring to record: its record and all its prediction rows. */
export interface ScoredEventWrite {
  event: ScoredEventRecord;
  predictions: readonly ScoredPredictionRecord[];
}

/**
 * Port for what the scoring job computes: each scored event with the scored values of its
 * predictions, and the per-miner score table. Every write carries the scoring job's fence and is
 * refused (false, nothing written) once a newer run holds the job.
 */
export interface ScoreStore {
  /**
   * Records the scoring of a batch of events (distinct ids): each event's record, and its
   * prediction rows replacing any stored before (so a counted flag can move to a later
   * prediction); what did not change is not rewritten. An event's record is written after its
   * rows: a reader sees the event once all its rows are stored (PostgreSQL: the whole batch is one
   * transaction; Deno KV: fenced commits of bounded size, each event's rows before its record).
   */
  putEventsFenced(events: readonly ScoredEventWrite[], options: { fence: Fence }): Promise<boolean>;
  getEvent(eventId: string): Promise<ScoredEventRecord | null>;
  /** The stored records of `eventIds` (distinct; unknown ones have none), any order, in one storage call. */
  getEvents(eventIds: readonly string[]): Promise<ScoredEventRecord[]>;
  /** The event's rows (only the counted ones with `countedOnly`), by `agentPredictionId`. */
  eventPredictions(eventId: string, options?: { countedOnly?: boolean }): Promise<ScoredPredictionRecord[]>;
  /** Every row of `eventIds` (distinct ids), by `eventId`, then `agentPredictionId`, in one storage call. */
  predictionsOfEvents(eventIds: readonly string[]): Promise<ScoredPredictionRecord[]>;
  /** Scored events, newest resolution first, then by event id. */
  listEvents(options: ListScoredEventsOptions): Promise<ScoredEventRecord[]>;
  /**
   * The counted rows of a page of events resolved in the window, by ascending (resolvedAtMs,
   * eventId), then by `agentPredictionId` (every miner's rows in the order of its sums, docs/scoring.md
   * "Determinism"); `next` is the last event of the page, null when no event follows.
   */
  windowRows(page: WindowPage): Promise<{ rows: WindowRow[]; next: ScoredEventPosition | null }>;
  /**
   * The counted rows of one miner on the events resolved in the window, newest resolution first,
   * then by event id, then by uid (a miner's page: its scored events and their figures).
   */
  minerRows(miner: MinerRowsOf, window: ResolvedWindow): Promise<ScoredPredictionRecord[]>;
  /** Replaces the score table. */
  putTableFenced(table: ScoreTable, options: { fence: Fence }): Promise<boolean>;
  /** The last score table written, or null before the first. */
  getTable(): Promise<ScoreTable | null>;
}
