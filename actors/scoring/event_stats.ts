/**
 * One resolved event's statistics (docs/scoring.md "Per event", the `stats` of `/v1/events/scored`)
 * over the counted rows of miners that have a uid.
 */
import type { ScorerEvent } from "./scorer_input.ts";
import { outcomeIdsOf, type ScoredPrediction } from "./prediction_score.ts";
import { exactMeanR6, normalise, r6 } from "./scoring_math.ts";

export interface EventStats {
  scored: number;
  valid: number;
  meanBrier: number | null;
  calledRate: number | null;
  bestUid: number | null;
}

/** An event's line of the scorer's output; `minerOrder` is the uids in the order rows are shown. */
export interface EventResult {
  stats: EventStats;
  marketPWinAtAdmission: number;
  minerOrder: number[];
}

type UidRow = ScoredPrediction & { prediction: { minerUid: number } };

function hasUid(row: ScoredPrediction): row is UidRow {
  return row.prediction.minerUid !== null;
}

/** The order miner rows are shown in: Brier ascending, invalid rows (null Brier) last, then uid. */
export function compareShownRows(
  a: { brier: number | null; uid: number },
  b: { brier: number | null; uid: number },
): number {
  const left = a.brier ?? Infinity;
  const right = b.brier ?? Infinity;
  return (left === right ? 0 : left < right ? -1 : 1) || a.uid - b.uid;
}

/** Miner rows in the order they are shown (`compareShownRows`). */
export function compareMinerRows(a: UidRow, b: UidRow): number {
  return compareShownRows(
    { brier: a.scored?.brier ?? null, uid: a.prediction.minerUid },
    { brier: b.scored?.brier ?? null, uid: b.prediction.minerUid },
  );
}

/** The uid of the lowest Brier; ties: earliest predictedAt, then lowest uid. */
function bestUidOf(valid: readonly UidRow[]): number | null {
  let best: UidRow | null = null;
  for (const row of valid) {
    const d = best === null
      ? -1
      : row.scored!.brier - best.scored!.brier || row.predictedAtMs - best.predictedAtMs ||
        row.prediction.minerUid - best.prediction.minerUid;
    if (d < 0) best = row;
  }
  return best?.prediction.minerUid ?? null;
}

/** The market's winning-outcome probability at admission, normalised. */
export function marketPWinAtAdmission(event: ScorerEvent): number {
  const winner = event.resolution.winningOutcomeId;
  const market = normalise(event.outcomePricesAtAdmission, outcomeIdsOf(event));
  if (winner === null || market === null) throw new RangeError(`Event is not resolved: ${event.id}`);
  return r6(market.get(winner)!);
}

/** Stats, admission market probability and row order of a resolved event from its counted rows. */
export function scoreEvent(event: ScorerEvent, counted: readonly ScoredPrediction[]): EventResult {
  const rows = counted.filter(hasUid);
  const valid = rows.filter((row) => row.scored !== null);
  const called = valid.filter((row) => row.scored!.called).length;
  return {
    stats: {
      scored: rows.length,
      valid: valid.length,
      meanBrier: valid.length === 0 ? null : exactMeanR6(valid.map((row) => row.scored!.brier)),
      calledRate: valid.length === 0 ? null : r6(called / valid.length),
      bestUid: bestUidOf(valid),
    },
    marketPWinAtAdmission: marketPWinAtAdmission(event),
    minerOrder: [...rows].sort(compareMinerRows).map((row) => row.prediction.minerUid),
  };
}
