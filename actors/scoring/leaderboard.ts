/**
 * The public leaderboard (docs/scoring.md, "GET /v1/leaderboard"), built from the metagraph, the forecasting
 * miners (hotkeys registered to an organisation), the score table and the prices. Pure: the caller reads
 * those and fixes the time.
 */
import { isoAt } from "../kernel/mod.ts";
import type { StoredNeuron } from "../../storage/metagraph_store.ts";
import type { ScoreTable, ScoreTableRow, StoredMinerScoring } from "../../storage/score_store.ts";
import { type MinerScoring, scoreMiner } from "./miner_scoring.ts";
import { forecastingPayouts } from "./payouts.ts";
import { type MinerIntervals, registrationKey } from "./board_intervals.ts";
import type { MeanInterval } from "./page_interval.ts";
import type { BaselineScoring } from "./baselines.ts";
import type { BoardWindow, WindowFigures } from "./window_figures.ts";

/** Rao per TAO (and per alpha): emission is shown in alpha per tempo (docs/validators.md). */
const RAO_PER_UNIT = 1e9;

export interface LeaderboardPrices {
  taoUsd: number | null;
  alphaTao: number | null;
  /** `taoUsd × alphaTao`, unrounded: the payouts use this very number. */
  alphaUsd: number | null;
  taoPriceUpdatedAt: string | null;
}

export interface ScoringMeta {
  windowDays: number;
  /** The score table's `computedAt` (docs/scoring.md, "The scoring job"). */
  computedAt: string;
  forecastingWeightShare: number;
  minerAlphaPerDay: number | null;
  forecastingBudgetAlphaPerDay: number | null;
}

export interface LeaderboardNeuron {
  uid: number;
  hotkey: string;
  coldkey: string;
  /** Total stake in rao, a decimal string. */
  stake: string;
  validatorPermit: boolean;
  active: boolean;
  incentive: number;
  /** Alpha per tempo. */
  emission: number;
  trust: number;
  consensus: number;
  dividends: number;
  /** Block number, a decimal string. */
  lastUpdate: string;
  /** When the metagraph sync first saw this (hotkey, uid): `ageHours` can be recomputed from it. */
  firstSeenAt: string;
  scoring: MinerScoring;
  forecastingIncentive: number;
  forecastingAlphaPerDay: number | null;
  forecastingUsdPerDay: number | null;
  /** 1 + the number of miners with a larger `forecastingIncentive` (equal incentives share a rank). */
  rank: number;
  /** The 95 % interval of the mean Brier over its per-event values in the window (null below 5). */
  brierInterval: MeanInterval | null;
  /** The 95 % interval of the mean per-event edge `marketBrier − brier` (null below 5). */
  edgeInterval: MeanInterval | null;
}

/** The whole board: every forecasting miner, sorted; a page is a prefix of `neurons`. */
export interface Leaderboard {
  netuid: number;
  updatedAt: string;
  stale: boolean;
  prices: LeaderboardPrices;
  scoringMeta: ScoringMeta;
  count: number;
  neurons: LeaderboardNeuron[];
  /** The scoring window and what it holds. */
  window: BoardWindow & { lastRunAt: string | null };
  /** The market at admission and the consensus, scored like miners over the window's events. */
  baselines: BaselineScoring[];
}

export interface LeaderboardInputs {
  netuid: number;
  /** The latest metagraph's neurons (none before the first sync). */
  neurons: readonly StoredNeuron[];
  /** Hotkeys registered to an organisation: only they are forecasting miners. */
  forecasting: ReadonlySet<string>;
  /** The score table; null before the scoring job's first run. */
  table: ScoreTable | null;
  /** `computedAt` to use without a table: the current interval's start. */
  fallbackComputedAtMs: number;
  windowDays: number;
  forecastingWeightShare: number;
  prices: { taoUsd: number; alphaTao: number; minerAlphaPerDay: number; at: string } | null;
  stale: boolean;
  nowMs: number;
  /** The intervals, baselines and counts over the table's window (`computeWindowFigures`). */
  figures: WindowFigures;
}

/** The published key order of a table row (PostgreSQL's JSONB does not keep key order). */
function published(scoring: StoredMinerScoring): MinerScoring {
  const { score, raw, accuracy, calibration, edge, brier, weightedBrier, roi } = scoring;
  const { preds, validPreds, invalidPreds, rho, effN, ageHours, gate } = scoring;
  return {
    ...{ score, raw, accuracy, calibration, edge, brier, weightedBrier, roi },
    ...{ preds, validPreds, invalidPreds, rho, effN, ageHours, gate: gate as MinerScoring["gate"] },
  };
}

/**
 * The neuron's table row, or (a registration the table predates) the row of a registration with
 * no scored prediction at the table's `computedAt`.
 */
function scoringOf(neuron: StoredNeuron, rows: ReadonlyMap<string, ScoreTableRow>, computedAtMs: number) {
  const row = rows.get(`${neuron.uid}/${neuron.hotkey}`);
  if (row) return { scoring: published(row.scoring), unroundedScore: row.unroundedScore };
  return scoreMiner([], { computedAtMs, firstSeenAtMs: neuron.firstSeenAtMs });
}

function chainMetrics(n: StoredNeuron) {
  return {
    uid: n.uid,
    hotkey: n.hotkey,
    coldkey: n.coldkey,
    stake: n.stakeRao.toString(),
    validatorPermit: n.validatorPermit,
    active: n.active,
    incentive: n.incentive,
    emission: Number(n.emissionRao) / RAO_PER_UNIT,
    trust: n.trust,
    consensus: n.consensus,
    dividends: n.dividends,
    lastUpdate: String(n.lastUpdate),
    firstSeenAt: isoAt(n.firstSeenAtMs),
  };
}

/**
 * Builds the board: forecasting miners only, each with its chain metrics, score-table row and
 * payouts (shares of the summed unrounded scores of the whole board, docs/scoring.md "Payouts"), sorted
 * by `forecastingIncentive` descending, then uid. Without prices the payouts in alpha and USD are null.
 */
export function buildLeaderboard(inputs: LeaderboardInputs): Leaderboard {
  const computedAtMs = inputs.table?.computedAtMs ?? inputs.fallbackComputedAtMs;
  const rows = new Map((inputs.table?.rows ?? []).map((row) => [`${row.uid}/${row.hotkey}`, row]));
  const miners = inputs.neurons.filter((n) => inputs.forecasting.has(n.hotkey))
    .map((neuron) => ({ neuron, ...scoringOf(neuron, rows, computedAtMs) }));
  const prices = inputs.prices;
  const alphaUsd = prices === null ? null : prices.taoUsd * prices.alphaTao;
  const payouts = forecastingPayouts(
    miners.map(({ neuron, unroundedScore }) => ({ uid: neuron.uid, score: unroundedScore })),
    {
      minerAlphaPerDay: prices?.minerAlphaPerDay ?? 0,
      forecastingWeightShare: inputs.forecastingWeightShare,
      alphaUsd: alphaUsd ?? 0,
    },
  );
  const neurons = miners.map(({ neuron, scoring }): LeaderboardNeuron => {
    const payout = payouts.miners.get(neuron.uid)!;
    const intervals: MinerIntervals | undefined = inputs.figures.intervals.get(
      registrationKey(neuron.uid, neuron.hotkey),
    );
    return {
      ...chainMetrics(neuron),
      scoring,
      forecastingIncentive: payout.forecastingIncentive,
      forecastingAlphaPerDay: prices === null ? null : payout.forecastingAlphaPerDay,
      forecastingUsdPerDay: prices === null ? null : payout.forecastingUsdPerDay,
      rank: 0,
      brierInterval: intervals?.brier ?? null,
      edgeInterval: intervals?.edge ?? null,
    };
  }).sort((a, b) => b.forecastingIncentive - a.forecastingIncentive || a.uid - b.uid);
  rankByIncentive(neurons);
  return {
    netuid: inputs.netuid,
    updatedAt: isoAt(inputs.nowMs),
    stale: inputs.stale,
    prices: {
      taoUsd: prices?.taoUsd ?? null,
      alphaTao: prices?.alphaTao ?? null,
      alphaUsd,
      taoPriceUpdatedAt: prices?.at ?? null,
    },
    scoringMeta: {
      windowDays: inputs.table?.windowDays ?? inputs.windowDays,
      computedAt: isoAt(computedAtMs),
      forecastingWeightShare: inputs.forecastingWeightShare,
      minerAlphaPerDay: prices?.minerAlphaPerDay ?? null,
      forecastingBudgetAlphaPerDay: prices === null ? null : payouts.forecastingBudgetAlphaPerDay,
    },
    count: neurons.length,
    neurons,
    window: { ...inputs.figures.window, lastRunAt: inputs.table === null ? null : isoAt(computedAtMs) },
    baselines: inputs.figures.baselines,
  };
}

/** Sets each row's competition rank; the rows are by `forecastingIncentive` descending. */
function rankByIncentive(neurons: LeaderboardNeuron[]): void {
  neurons.forEach((row, index) => {
    const before = neurons[index - 1];
    row.rank = before !== undefined && before.forecastingIncentive === row.forecastingIncentive
      ? before.rank
      : index + 1;
  });
}
