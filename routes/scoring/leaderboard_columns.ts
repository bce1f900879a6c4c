import type { BaselineScoring, LeaderboardNeuron, MeanInterval, SortName } from "../../actors/scoring/mod.ts";
import { toCsv } from "../http/csv.ts";

/**
 * A column of the leaderboard's table: the `/leaderboard` page's header and definition, and its
 * fields in the CSV of the same view (`format=csv`), so the page and the CSV have the same columns
 * in the same order.
 */
export interface BoardColumn {
  id: string;
  heading: string;
  /** What the column means (the header's tooltip and the page's definitions list). */
  meaning: string;
  /** The `sort` value that sorts by it; null when it is not sortable. */
  sort: SortName | null;
  numeric: boolean;
  /** Its fields in the CSV, in order. */
  csv: readonly string[];
}

export const BOARD_COLUMNS: readonly BoardColumn[] = [
  {
    id: "rank",
    heading: "Rank",
    meaning: "Position by incentive; miners with equal incentive share a rank. Baselines are not ranked.",
    sort: null,
    numeric: true,
    csv: ["rank"],
  },
  {
    id: "uid",
    heading: "UID",
    meaning: "The miner's uid on the subnet.",
    sort: "uid",
    numeric: true,
    csv: ["uid"],
  },
  {
    id: "hotkey",
    heading: "Hotkey",
    meaning: "The miner's hotkey (SS58); it links to the miner's page.",
    sort: "hotkey",
    numeric: false,
    csv: ["hotkey"],
  },
  {
    id: "score",
    heading: "Score",
    meaning: "rho × max(edge, 0) when the gate passes, else 0: payouts are shared in proportion to it.",
    sort: "score",
    numeric: true,
    csv: ["score"],
  },
  {
    id: "brier",
    heading: "Mean Brier",
    meaning: "Mean Brier score of its valid predictions in the window (lower is better; 0.25 is a coin " +
      "flip on a binary market), with the 95 % interval of that mean (from 5 events on).",
    sort: "brier",
    numeric: true,
    csv: ["brier", "brierLow", "brierHigh"],
  },
  {
    id: "edge",
    heading: "Edge",
    meaning: "Edge against the market: the recency-weighted mean of (the market's Brier − its Brier); " +
      "positive is better than the market. The interval is that of the unweighted per-event mean.",
    sort: "edge",
    numeric: true,
    csv: ["edge", "edgeLow", "edgeHigh"],
  },
  {
    id: "calibration",
    heading: "Calibration",
    meaning: "1 − the expected calibration error over ten bins of its forecast probability: 1 is " +
      "perfectly calibrated.",
    sort: "calibration",
    numeric: true,
    csv: ["calibration"],
  },
  {
    id: "valid",
    heading: "Valid",
    meaning: "Valid predictions counted in the window (a miner's latest on each event).",
    sort: "validPreds",
    numeric: true,
    csv: ["validPreds"],
  },
  {
    id: "invalid",
    heading: "Invalid",
    meaning: "Invalid predictions counted in the window; more than 25 % of them stops the gate.",
    sort: "invalidPreds",
    numeric: true,
    csv: ["invalidPreds"],
  },
  {
    id: "gate",
    heading: "Gate",
    meaning: "pass, or why the score is 0: no_predictions, invalid_rate (over 25 % invalid), " +
      "min_predictions (under 5 valid).",
    sort: "gate",
    numeric: false,
    csv: ["gate"],
  },
  {
    id: "incentive",
    heading: "Incentive",
    meaning: "Its share of the forecasting weight: its score ÷ the sum of every miner's score.",
    sort: "incentive",
    numeric: true,
    csv: ["forecastingIncentive"],
  },
  {
    id: "alpha",
    heading: "α / day",
    meaning: "Payout per day in alpha: incentive × the forecasting budget (in incentive order).",
    sort: null,
    numeric: true,
    csv: ["forecastingAlphaPerDay"],
  },
  {
    id: "usd",
    heading: "$ / day",
    meaning: "Payout per day in US dollars at the current alpha price (in incentive order).",
    sort: null,
    numeric: true,
    csv: ["forecastingUsdPerDay"],
  },
];

/** The CSV's header: every column's fields, in the table's order. */
export const BOARD_CSV_FIELDS: readonly string[] = BOARD_COLUMNS.flatMap((column) => column.csv);

type CsvRecord = Record<string, unknown>;

function bounds(prefix: string, interval: MeanInterval | null): CsvRecord {
  return { [`${prefix}Low`]: interval?.low ?? null, [`${prefix}High`]: interval?.high ?? null };
}

function minerRecord(row: LeaderboardNeuron): CsvRecord {
  const { scoring } = row;
  return {
    rank: row.rank,
    uid: row.uid,
    hotkey: row.hotkey,
    score: scoring.score,
    brier: scoring.brier,
    ...bounds("brier", row.brierInterval),
    edge: scoring.edge,
    ...bounds("edge", row.edgeInterval),
    calibration: scoring.calibration,
    validPreds: scoring.validPreds,
    invalidPreds: scoring.invalidPreds,
    gate: scoring.gate,
    forecastingIncentive: row.forecastingIncentive,
    forecastingAlphaPerDay: row.forecastingAlphaPerDay,
    forecastingUsdPerDay: row.forecastingUsdPerDay,
  };
}

/** A baseline's CSV row: `rank` says `baseline`, `hotkey` its name; what it has no value for is empty. */
function baselineRecord(row: BaselineScoring): CsvRecord {
  return {
    rank: "baseline",
    hotkey: row.name,
    brier: row.brier,
    ...bounds("brier", row.brierInterval),
    calibration: row.calibration,
    validPreds: row.validPreds,
    invalidPreds: row.invalidPreds,
  };
}

/** The CSV of a view: the baselines (pinned first, as on the page), then the view's rows. */
export function boardCsv(baselines: readonly BaselineScoring[], rows: readonly LeaderboardNeuron[]): string {
  return toCsv(BOARD_CSV_FIELDS, [...baselines.map(baselineRecord), ...rows.map(minerRecord)]);
}
