/**
 * What the methodology page and `GET /v1/scoring/methodology` show (docs/scoring.md,
 * "Methodology"): scorer v1's exported constants with what each means, the pages' own constants
 * (not part of scorer v1), this deployment's settings, and the worked example scored by the scorer.
 */
import { U16_MAX } from "./emit_weights.ts";
import {
  CALIBRATION_BINS,
  HALF_LIFE_DAYS,
  MAX_INVALID_RATE,
  MIN_VALID_PREDICTIONS,
  RHO_PRIOR,
  STAKE_GAP,
} from "./miner_fold.ts";
import { MIN_INTERVAL_EVENTS, Z95 } from "./page_interval.ts";
import { SUM_TOLERANCE, VALIDITY_REASONS } from "./prediction_validity.ts";
import { WINDOW_DAYS } from "./score_stream.ts";
import { SCORER_VERSION } from "./score_v1.ts";
import { type WorkedExample, workedExample } from "./worked_example.ts";

/** A named constant of the code, its value, what it means and the file that exports it. */
export interface NamedConstant {
  name: string;
  value: number | string | readonly string[];
  meaning: string;
  file: string;
}

/** The settings of this deployment that change the scorer's inputs (its running configuration). */
export interface ScoringSettings {
  /** `FGW_SCORING_WINDOW_DAYS`. */
  windowDays: number;
  /** `FGW_SCORING_INTERVAL_MS`. */
  scoringIntervalMs: number;
  /** `FGW_FORECASTING_WEIGHT_SHARE`. */
  forecastingWeightShare: number;
}

const SCORING = "actors/scoring";

/** Scorer v1's exported constants, in the order the formulas use them. */
export const SCORER_CONSTANTS: readonly NamedConstant[] = [
  {
    name: "SCORER_VERSION",
    value: SCORER_VERSION,
    file: `${SCORING}/score_v1.ts`,
    meaning: "The scorer's version.",
  },
  {
    name: "VALIDITY_REASONS",
    value: VALIDITY_REASONS,
    file: `${SCORING}/prediction_validity.ts`,
    meaning: "The validity rules, in the order a prediction's reasons list them.",
  },
  {
    name: "SUM_TOLERANCE",
    value: SUM_TOLERANCE,
    file: `${SCORING}/prediction_validity.ts`,
    meaning: "A prediction whose probabilities sum further than this from 1 is invalid.",
  },
  {
    name: "WINDOW_DAYS",
    value: WINDOW_DAYS,
    file: `${SCORING}/score_stream.ts`,
    meaning:
      "The window in days: a miner's rows are on events resolved within it (a deployment sets its own).",
  },
  {
    name: "HALF_LIFE_DAYS",
    value: HALF_LIFE_DAYS,
    file: `${SCORING}/miner_fold.ts`,
    meaning: "A row's weight halves every this many days since its event resolved.",
  },
  {
    name: "RHO_PRIOR",
    value: RHO_PRIOR,
    file: `${SCORING}/miner_fold.ts`,
    meaning: "The effective number of rows at which the confidence factor rho is one half.",
  },
  {
    name: "MAX_INVALID_RATE",
    value: MAX_INVALID_RATE,
    file: `${SCORING}/miner_fold.ts`,
    meaning: "Gate invalid_rate: a miner with more than this share of invalid rows scores 0.",
  },
  {
    name: "MIN_VALID_PREDICTIONS",
    value: MIN_VALID_PREDICTIONS,
    file: `${SCORING}/miner_fold.ts`,
    meaning: "Gate min_predictions: a miner with fewer valid rows than this scores 0.",
  },
  {
    name: "CALIBRATION_BINS",
    value: CALIBRATION_BINS,
    file: `${SCORING}/miner_fold.ts`,
    meaning: "Calibration bins the forecast probability of the predicted outcome into this many equal bins.",
  },
  {
    name: "STAKE_GAP",
    value: STAKE_GAP,
    file: `${SCORING}/miner_fold.ts`,
    meaning: "roi stakes on a row only when the forecast exceeds the market by more than this.",
  },
  {
    name: "U16_MAX",
    value: U16_MAX,
    file: `${SCORING}/emit_weights.ts`,
    meaning: "On-chain weights are scaled so that the largest is this.",
  },
];

/** The pages' own constants: figures the pages show that scorer v1 does not produce. */
export const PAGE_FIGURE_CONSTANTS: readonly NamedConstant[] = [
  {
    name: "MIN_INTERVAL_EVENTS",
    value: MIN_INTERVAL_EVENTS,
    file: `${SCORING}/page_interval.ts`,
    meaning: "A 95 % interval of a mean is shown from this many per-event values on.",
  },
  {
    name: "Z95",
    value: Z95,
    file: `${SCORING}/page_interval.ts`,
    meaning: "The z of a two-sided 95 % interval: mean ± Z95 · sd / √n.",
  },
];

/** Everything the methodology shows. */
export interface Methodology {
  scorerVersion: string;
  constants: readonly NamedConstant[];
  pageFigureConstants: readonly NamedConstant[];
  settings: ScoringSettings;
  example: WorkedExample;
}

let example: WorkedExample | null = null;

/** The methodology for a deployment's settings (the example is scored once, on first use). */
export function methodologyOf(settings: ScoringSettings): Methodology {
  example ??= workedExample();
  return {
    scorerVersion: SCORER_VERSION,
    constants: SCORER_CONSTANTS,
    pageFigureConstants: PAGE_FIGURE_CONSTANTS,
    settings,
    example,
  };
}
