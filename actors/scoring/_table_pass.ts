/**
 * The scoring job's second step: the per-miner score table over the window ending at the run's
 * `computedAt`, for the current (hotkey, uid) registrations of the metagraph — the streaming
 * scorer's table fold (`ScoreTableFold`) over the stored counted rows of the window, read in pages
 * of whole events in the order of a miner's sums.
 */
import type { MetagraphStore } from "../../storage/metagraph_store.ts";
import type { ScoreStore, ScoreTable, WindowRow } from "../../storage/score_store.ts";
import { ScoreTableFold } from "./score_stream.ts";
import { tableRowInputOf } from "./stored_scoring.ts";
import { DAY_MS } from "../kernel/mod.ts";

/** Events per page of window rows (about 50,000 rows at 50 predictions per event). */
const WINDOW_PAGE_EVENTS = 1_000;

export interface TablePassDeps {
  scores: ScoreStore;
  metagraph: MetagraphStore;
  netuid: number;
  windowDays: number;
}

function foldRows(fold: ScoreTableFold, rows: readonly WindowRow[]): void {
  for (const row of rows) fold.add(tableRowInputOf(row));
}

/**
 * The score table at `computedAtMs`: one row per neuron of the subnet's latest metagraph (none
 * before its first sync), each from that (hotkey, uid)'s counted rows on events resolved in
 * (`computedAt − windowDays`, `computedAt`]. The next page is read while one is folded.
 */
export async function computeScoreTable(deps: TablePassDeps, computedAtMs: number): Promise<ScoreTable> {
  const metagraph = await deps.metagraph.latest(deps.netuid);
  const registrations = (metagraph?.neurons ?? []).map(({ hotkey, uid, firstSeenAtMs }) => ({
    hotkey,
    uid,
    firstSeenAtMs,
  }));
  const fold = new ScoreTableFold(registrations, { computedAtMs, windowDays: deps.windowDays });
  const window = {
    resolvedAfterMs: computedAtMs - deps.windowDays * DAY_MS,
    resolvedUntilMs: computedAtMs,
    events: WINDOW_PAGE_EVENTS,
  };
  let reading = deps.scores.windowRows(window);
  for (;;) {
    const { rows, next } = await reading;
    if (next !== null) reading = deps.scores.windowRows({ ...window, after: next });
    foldRows(fold, rows);
    if (next === null) break;
  }
  const rows = fold.rows().map(({ hotkey, uid, firstSeenAtMs, scoring, unroundedScore }) => ({
    hotkey,
    uid,
    firstSeenAtMs,
    scoring,
    unroundedScore,
  }));
  return { computedAtMs, windowDays: deps.windowDays, rows };
}
