/**
 * The orders the leaderboard can be listed in (`sort` and `order` of `GET /v1/leaderboard` and
 * `/leaderboard`): a closed list of columns, each with the order it is listed in by default (best
 * first). Ties are always by uid ascending. On the columns that exist only with a valid prediction
 * (Brier, edge, calibration), miners without one come last in either order: the scorer gives them
 * 0, which is no figure.
 */
import type { ScoringGate } from "../../storage/score_store.ts";
import type { LeaderboardNeuron } from "./leaderboard.ts";
import { compareCodePoints } from "./scoring_math.ts";

export type SortOrder = "asc" | "desc";

/** How far a gate is from passing: the order of `sort=gate`. */
const GATE_RANK: Record<ScoringGate, number> = {
  pass: 0,
  min_predictions: 1,
  invalid_rate: 2,
  no_predictions: 3,
};

interface SortColumn {
  /** The order of a `sort` without `order`. */
  defaultOrder: SortOrder;
  /** Negative when `a` comes first in ascending order. */
  compare(a: LeaderboardNeuron, b: LeaderboardNeuron): number;
  /** Only rows with a valid prediction have the figure; the others come last. */
  needsValid?: boolean;
}

const byNumber =
  (value: (row: LeaderboardNeuron) => number) => (a: LeaderboardNeuron, b: LeaderboardNeuron) =>
    value(a) - value(b);

/** Every sortable column by its `sort` name. */
export const SORT_COLUMNS = {
  incentive: { defaultOrder: "desc", compare: byNumber((r) => r.forecastingIncentive) },
  uid: { defaultOrder: "asc", compare: byNumber((r) => r.uid) },
  hotkey: { defaultOrder: "asc", compare: (a, b) => compareCodePoints(a.hotkey, b.hotkey) },
  score: { defaultOrder: "desc", compare: byNumber((r) => r.scoring.score) },
  brier: { defaultOrder: "asc", compare: byNumber((r) => r.scoring.brier), needsValid: true },
  edge: { defaultOrder: "desc", compare: byNumber((r) => r.scoring.edge), needsValid: true },
  calibration: { defaultOrder: "desc", compare: byNumber((r) => r.scoring.calibration), needsValid: true },
  validPreds: { defaultOrder: "desc", compare: byNumber((r) => r.scoring.validPreds) },
  invalidPreds: { defaultOrder: "asc", compare: byNumber((r) => r.scoring.invalidPreds) },
  gate: { defaultOrder: "asc", compare: byNumber((r) => GATE_RANK[r.scoring.gate]) },
} as const satisfies Record<string, SortColumn>;

export type SortName = keyof typeof SORT_COLUMNS;

/** The `sort` names, in the order the documentation lists them. */
export const SORT_NAMES = Object.keys(SORT_COLUMNS) as [SortName, ...SortName[]];

/** The board's own order: by incentive, best first. */
export const DEFAULT_SORT: SortName = "incentive";

/** The order a `sort` is listed in when `order` is not given. */
export function defaultOrderOf(sort: SortName): SortOrder {
  return SORT_COLUMNS[sort].defaultOrder;
}

/** The rows in `sort`/`order` order (a new array), ties by uid ascending. */
export function sortNeurons(
  neurons: readonly LeaderboardNeuron[],
  sort: SortName,
  order: SortOrder,
): LeaderboardNeuron[] {
  const column: SortColumn = SORT_COLUMNS[sort];
  const sign = order === "asc" ? 1 : -1;
  const lacks = (row: LeaderboardNeuron) =>
    column.needsValid === true && row.scoring.validPreds === 0 ? 1 : 0;
  return neurons.toSorted((a, b) => lacks(a) - lacks(b) || sign * column.compare(a, b) || a.uid - b.uid);
}
