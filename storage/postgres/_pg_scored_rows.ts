/**
 * A scored event's prediction rows as PostgreSQL stores them (migration 020): one JSON value per
 * event in `scored_events.rows`, one array per field (rows by `agentPredictionId`), and the keys
 * of its counted rows' miners in `scored_events.miners` (a GIN index: a miner's scored events).
 * One row per event instead of one per prediction: a batch of 10,000 predictions writes 200 rows.
 */
import type { TransactionSql } from "postgres";
import type { ScoredPredictionRecord, WindowRow } from "../score_store.ts";

/** `scored_events.rows`: the fields of an event's rows, index by index. */
export interface StoredRows {
  agentPredictionId: string[];
  minerHotkey: string[];
  minerUid: number[];
  predictedAtMs: number[];
  resolvedAtMs: number[];
  counted: boolean[];
  reasons: string[][];
  pWin: (number | null)[];
  brier: (number | null)[];
  called: (boolean | null)[];
  marketBrier: (number | null)[];
  pPredicted: (number | null)[];
  stakeReturn: (number | null)[];
}

const FIELDS = [
  "agentPredictionId",
  "minerHotkey",
  "minerUid",
  "predictedAtMs",
  "resolvedAtMs",
  "counted",
  "reasons",
  "pWin",
  "brier",
  "called",
  "marketBrier",
  "pPredicted",
  "stakeReturn",
] as const satisfies readonly (keyof StoredRows & keyof ScoredPredictionRecord)[];

/** A UTF-16 code unit moved so that unit order is code-point order (the "C" collation's order). */
function rank(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit;
}

/** Rows by `agentPredictionId` in code-point order. */
function byId(a: ScoredPredictionRecord, b: ScoredPredictionRecord): number {
  const [x, y] = [a.agentPredictionId, b.agentPredictionId];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x.charCodeAt(i) !== y.charCodeAt(i)) return rank(x.charCodeAt(i)) - rank(y.charCodeAt(i));
  }
  return x.length - y.length;
}

export function encodeRows(rows: readonly ScoredPredictionRecord[]): StoredRows {
  const sorted = rows.toSorted(byId);
  const stored = Object.fromEntries(FIELDS.map((field) => [field, sorted.map((row) => row[field])]));
  return stored as unknown as StoredRows;
}

/** The rows of event `eventId` (only the counted ones with `countedOnly`); none for a null value. */
export function decodeRows(
  eventId: string,
  stored: StoredRows | null,
  options: { countedOnly?: boolean } = {},
): ScoredPredictionRecord[] {
  if (stored === null) return [];
  const rows: ScoredPredictionRecord[] = [];
  for (let i = 0; i < stored.agentPredictionId.length; i++) {
    if (options.countedOnly && !stored.counted[i]) continue;
    rows.push({
      agentPredictionId: stored.agentPredictionId[i]!,
      eventId,
      minerHotkey: stored.minerHotkey[i]!,
      minerUid: stored.minerUid[i]!,
      predictedAtMs: stored.predictedAtMs[i]!,
      resolvedAtMs: stored.resolvedAtMs[i]!,
      counted: stored.counted[i]!,
      reasons: stored.reasons[i]!,
      pWin: stored.pWin[i]!,
      brier: stored.brier[i]!,
      called: stored.called[i]!,
      marketBrier: stored.marketBrier[i]!,
      pPredicted: stored.pPredicted[i]!,
      stakeReturn: stored.stakeReturn[i]!,
    });
  }
  return rows;
}

/** The counted rows of event `eventId` as the score table reads them. */
export function windowRowsOf(eventId: string, stored: StoredRows | null): WindowRow[] {
  if (stored === null) return [];
  const rows: WindowRow[] = [];
  for (let i = 0; i < stored.agentPredictionId.length; i++) {
    if (!stored.counted[i]) continue;
    rows.push({
      eventId,
      minerHotkey: stored.minerHotkey[i]!,
      minerUid: stored.minerUid[i]!,
      resolvedAtMs: stored.resolvedAtMs[i]!,
      brier: stored.brier[i]!,
      marketBrier: stored.marketBrier[i]!,
      called: stored.called[i]!,
      pPredicted: stored.pPredicted[i]!,
      stakeReturn: stored.stakeReturn[i]!,
    });
  }
  return rows;
}

/** The GIN key of a miner's scored events: by hotkey (any uid), or by (hotkey, uid). */
export function minerKey(hotkey: string, uid?: number): string {
  return uid === undefined ? `h:${hotkey}` : `u:${uid}:${hotkey}`;
}

/** `scored_events.miners`: both keys of each counted row's miner. */
export function minerKeysOf(rows: readonly ScoredPredictionRecord[]): string[] {
  const keys = new Set<string>();
  for (const row of rows) {
    if (!row.counted) continue;
    keys.add(minerKey(row.minerHotkey));
    keys.add(minerKey(row.minerHotkey, row.minerUid));
  }
  return [...keys];
}

/**
 * Settings of a scoring batch write's transaction (scored events, marks):
 * - an asynchronous commit: it does not wait for its WAL to reach disk (the WAL writer flushes it
 *   within `wal_writer_delay`, and any later durable commit flushes it first). A database crash
 *   can lose the last of these writes, never a later one without the earlier ones (WAL is
 *   replayed in order: marks are never kept without their rows), and the next run, resumable and
 *   idempotent, writes them again;
 * - no JIT: the statements are short, and a young table's missing statistics can push their
 *   estimated cost over `jit_above_cost` (compiling then costs more than running).
 */
export async function forBatchWrites(tx: TransactionSql): Promise<void> {
  await tx`SET LOCAL synchronous_commit = off; SET LOCAL jit = off`.simple();
}
