/**
 * The figures of a miner's page that scorer v1 does not produce (docs/scoring.md,
 * "GET /v1/miners/{hotkey}"), computed from the scorer's stored values of the miner's counted rows
 * in the window: the reliability bins, the weekly mean Brier beside the market's, and the 95 %
 * intervals of its mean Brier and mean edge. Pure; invalid rows (null Brier) take no part.
 */
import { DAY_MS } from "../kernel/mod.ts";
import type { ScoredPredictionRecord } from "../../storage/score_store.ts";
import { calibrationBinOf } from "./miner_fold.ts";
import type { MeanInterval } from "./page_interval.ts";
import { publishedInterval } from "./board_intervals.ts";
import { exactMeanR6, r6 } from "./scoring_math.ts";

/** What the figures read of a counted row. */
export type FigureRow = Pick<
  ScoredPredictionRecord,
  "resolvedAtMs" | "brier" | "marketBrier" | "called" | "pPredicted"
>;

/** One tenth of the forecast probability of the predicted outcome. */
export interface ReliabilityBin {
  /** 0..9: forecasts in [bin/10, (bin+1)/10), the last bin including 1. */
  bin: number;
  count: number;
  /** r6 mean forecast probability of the bin's rows; null for an empty bin. */
  meanForecast: number | null;
  /** r6 share of the bin's rows whose predicted outcome won; null for an empty bin. */
  observedFrequency: number | null;
}

/** The mean Brier of one week's rows (by `resolvedAt`) beside the market's on the same rows. */
export interface WeeklyBrier {
  /** Monday 00:00 UTC of the week. */
  weekStartMs: number;
  /** Valid rows resolved that week. */
  count: number;
  meanBrier: number;
  marketMeanBrier: number;
}

interface ValidRow {
  resolvedAtMs: number;
  brier: number;
  marketBrier: number;
  called: boolean;
  pPredicted: number;
}

const WEEK_MS = 7 * DAY_MS;
/** 1970-01-05, the first Monday after the epoch, is 4 days after it. */
const FIRST_MONDAY_MS = 4 * DAY_MS;

function validRows(rows: readonly FigureRow[]): ValidRow[] {
  const valid: ValidRow[] = [];
  for (const row of rows) {
    if (row.brier === null || row.marketBrier === null || row.called === null || row.pPredicted === null) {
      continue;
    }
    const { resolvedAtMs, brier, marketBrier, called, pPredicted } = row;
    valid.push({ resolvedAtMs, brier, marketBrier, called, pPredicted });
  }
  return valid;
}

/** Monday 00:00 UTC of the week holding `atMs`. */
export function weekStartOf(atMs: number): number {
  const intoWeek = ((atMs - FIRST_MONDAY_MS) % WEEK_MS + WEEK_MS) % WEEK_MS;
  return atMs - intoWeek;
}

/**
 * The reliability diagram's ten bins: the forecast probability of the predicted outcome (the
 * scorer's `pPredicted`) binned as the scorer's calibration bins it (`min(⌊10q⌋, 9)`), with each
 * bin's count, mean forecast and observed frequency (the share whose predicted outcome won).
 */
export function reliabilityBins(rows: readonly FigureRow[]): ReliabilityBin[] {
  const sums = Array.from({ length: 10 }, () => ({ count: 0, forecast: 0, won: 0 }));
  for (const row of validRows(rows)) {
    const sum = sums[calibrationBinOf(row.pPredicted)]!;
    sum.count += 1;
    sum.forecast += row.pPredicted;
    sum.won += row.called ? 1 : 0;
  }
  return sums.map((sum, bin) => ({
    bin,
    count: sum.count,
    meanForecast: sum.count === 0 ? null : r6(sum.forecast / sum.count),
    observedFrequency: sum.count === 0 ? null : r6(sum.won / sum.count),
  }));
}

/**
 * "Brier over time": per week (Monday 00:00 UTC, by `resolvedAt`) with a valid row, the exact
 * mean of the rows' Brier scores and of the market's Brier on the same rows, oldest week first.
 */
export function weeklyBrier(rows: readonly FigureRow[]): WeeklyBrier[] {
  const weeks = new Map<number, ValidRow[]>();
  for (const row of validRows(rows)) {
    const week = weekStartOf(row.resolvedAtMs);
    const list = weeks.get(week);
    if (list) list.push(row);
    else weeks.set(week, [row]);
  }
  return [...weeks].sort(([a], [b]) => a - b).map(([weekStartMs, list]) => ({
    weekStartMs,
    count: list.length,
    meanBrier: exactMeanR6(list.map((row) => row.brier)),
    marketMeanBrier: exactMeanR6(list.map((row) => row.marketBrier)),
  }));
}

/**
 * The miner's valid rows and the 95 % intervals of its mean Brier and mean edge (`marketBrier −
 * brier`), r6-rounded; null below `MIN_INTERVAL_EVENTS` valid rows.
 */
export interface MinerReportIntervals {
  validRows: number;
  meanBrier: MeanInterval | null;
  meanEdge: MeanInterval | null;
}

/** `meanInterval` over the per-event Brier scores and edges of the valid rows. */
export function minerIntervals(rows: readonly FigureRow[]): MinerReportIntervals {
  const valid = validRows(rows);
  return {
    validRows: valid.length,
    meanBrier: publishedInterval(valid.map((row) => row.brier)),
    meanEdge: publishedInterval(valid.map((row) => row.marketBrier - row.brier)),
  };
}
