import { z } from "zod";
import { MIN_INTERVAL_EVENTS, SORT_NAMES } from "../../actors/scoring/mod.ts";
import { defineRoute } from "../http/openapi.ts";
import { instant, queryInteger, queryIntegerOr } from "./_query_values.ts";

/** A miner's row of the score table (docs/scoring.md, "Per miner"), key order as published. */
export const MinerScoringSchema = z.object({
  score: z.number(),
  raw: z.number(),
  accuracy: z.number(),
  calibration: z.number(),
  edge: z.number(),
  brier: z.number(),
  weightedBrier: z.number(),
  roi: z.number(),
  preds: z.number().int(),
  validPreds: z.number().int(),
  invalidPreds: z.number().int(),
  rho: z.number(),
  effN: z.number(),
  ageHours: z.number(),
  gate: z.enum(["no_predictions", "invalid_rate", "min_predictions", "pass"]),
}).meta({ id: "MinerScoring" });

const unitShare = (description: string) => z.number().meta({ description });

/** The 95 % interval of a mean over per-event values (not part of scorer v1). */
export const MeanIntervalSchema = z.object({
  mean: z.number(),
  low: z.number(),
  high: z.number(),
  n: z.number().int().meta({ description: "The per-event values it is over." }),
}).meta({
  id: "MeanInterval",
  description: `\`mean ± 1.96·sd/√n\` (sample sd), r6-rounded; null below ${MIN_INTERVAL_EVENTS} values.`,
});

const interval = (description: string) => MeanIntervalSchema.nullable().meta({ description });

export const LeaderboardNeuronSchema = z.object({
  uid: z.number().int(),
  hotkey: z.string().meta({ description: "SS58, prefix 42." }),
  coldkey: z.string().meta({ description: "SS58, prefix 42." }),
  stake: z.string().meta({
    description: "Total stake in rao, a decimal string.",
    example: "312460092414791",
  }),
  validatorPermit: z.boolean(),
  active: z.boolean(),
  incentive: unitShare("0..1 (the chain's u16 ÷ 65535)."),
  emission: z.number().meta({ description: "Alpha per tempo (rao ÷ 1e9)." }),
  trust: unitShare("0..1 (the chain's u16 ÷ 65535)."),
  consensus: unitShare("0..1 (the chain's u16 ÷ 65535)."),
  dividends: unitShare("0..1 (the chain's u16 ÷ 65535)."),
  lastUpdate: z.string().meta({ description: "Block of the neuron's last update, a decimal string." }),
  firstSeenAt: instant.meta({ description: "When a metagraph sync first saw this hotkey on this uid." }),
  scoring: MinerScoringSchema,
  forecastingIncentive: unitShare("`r6(score / Σscore)` over every forecasting miner of the board."),
  forecastingAlphaPerDay: z.number().nullable().meta({ description: "Null until prices are known." }),
  forecastingUsdPerDay: z.number().nullable().meta({ description: "Null until prices are known." }),
  rank: z.number().int().meta({
    description: "1 + the miners with a larger forecastingIncentive (equal incentives share a rank).",
  }),
  brierInterval: interval("Of the mean Brier over its valid counted rows in the window, one per event."),
  edgeInterval: interval("Of the mean per-event edge `marketBrier − brier` (unweighted, unlike `edge`)."),
}).meta({ id: "LeaderboardNeuron" });

/** A baseline's figure: null while it has no valid prediction in the window (`validPreds` 0). */
const noValidPrediction = () =>
  z.number().nullable().meta({ description: "Null when `validPreds` is 0 (nothing to average)." });

export const BaselineSchema = z.object({
  name: z.enum(["market", "consensus"]).meta({
    description: "`market`: the market price at admission; `consensus`: the last consensus history " +
      "point before `resolvedAt`.",
  }),
  events: z.number().int().meta({ description: "Events scored in the window." }),
  preds: z.number().int().meta({ description: "Events the baseline had a forecast for." }),
  validPreds: z.number().int(),
  invalidPreds: z.number().int(),
  brier: noValidPrediction(),
  brierInterval: interval("Of the mean Brier over its per-event values."),
  weightedBrier: noValidPrediction(),
  accuracy: noValidPrediction(),
  calibration: noValidPrediction(),
}).meta({ id: "LeaderboardBaseline", description: "Scored like a miner, with no edge and no payout." });

export const LeaderboardSchema = z.object({
  netuid: z.number().int(),
  updatedAt: instant.meta({
    description:
      "When this board was built (it is served for `FGW_LEADERBOARD_CACHE_MS`, a minute by default).",
  }),
  stale: z.boolean().meta({ description: "True when the metagraph or the prices are stale." }),
  prices: z.object({
    taoUsd: z.number().nullable(),
    alphaTao: z.number().nullable(),
    alphaUsd: z.number().nullable().meta({ description: "`taoUsd × alphaTao`." }),
    taoPriceUpdatedAt: instant.nullable(),
  }).meta({ description: "All null until the first successful prices sync." }),
  scoringMeta: z.object({
    windowDays: z.number(),
    computedAt: instant.meta({
      description: "The score table's computedAt: the start of its run's interval.",
    }),
    forecastingWeightShare: z.number(),
    minerAlphaPerDay: z.number().nullable(),
    forecastingBudgetAlphaPerDay: z.number().nullable().meta({
      description: "`minerAlphaPerDay × forecastingWeightShare`.",
    }),
  }),
  count: z.number().int().meta({ description: "Every forecasting miner, whatever `limit` is." }),
  neurons: z.array(LeaderboardNeuronSchema).meta({
    description: "In the `sort`/`order` order (default forecastingIncentive descending), then uid; " +
      "at most `limit`.",
  }),
  window: z.object({
    from: instant.meta({ description: "Exclusive: events resolved after it." }),
    to: instant.meta({ description: "Inclusive: the score table's computedAt." }),
    scoredEvents: z.number().int().meta({ description: "Scored events resolved in the window." }),
    countedPredictions: z.number().int().meta({
      description: "Their counted predictions (each miner's latest on an event), every miner's.",
    }),
    lastRunAt: instant.nullable().meta({
      description: "The computedAt of the last scoring run's table; null before the first.",
    }),
  }),
  baselines: z.array(BaselineSchema).meta({ description: "`market`, then `consensus`." }),
}).meta({ id: "Leaderboard" });

export const leaderboardQuerySchema = z.strictObject({
  limit: queryIntegerOr(1, 256, 20).meta({
    description: "1..256, default 20.",
  }),
  netuid: queryInteger(0, 65_535).optional().meta({
    description: "The subnet; only the one this service serves (`FGW_NETUID`, default 41).",
  }),
  sort: z.enum(SORT_NAMES).default("incentive").meta({
    description: "The column the rows are sorted by (docs/scoring.md), default `incentive`.",
  }),
  order: z.enum(["asc", "desc"]).optional().meta({
    description: "Default: the column's own (best first: `asc` for uid, hotkey, brier, invalidPreds, gate).",
  }),
  format: z.enum(["json", "csv"]).default("json").meta({
    description: "`csv`: the rows of the /leaderboard page's table (baselines first), same columns.",
  }),
});

export const leaderboardRoute = defineRoute({
  method: "get",
  path: "/",
  tags: ["scoring"],
  summary: "Standings of the forecasting miners",
  description:
    "Forecasting miners only (hotkeys registered to an organisation that hold a uid), with chain " +
    "metrics, prices, the score-table row, payouts and 95 % intervals, beside two baselines; sorted " +
    "by `sort`/`order`. See docs/scoring.md.",
  access: "public",
  errors: ["not_found"],
  request: { query: leaderboardQuerySchema },
  responses: {
    200: {
      description: "The board, cached 60 s (JSON, or CSV when `format=csv`).",
      content: {
        "application/json": { schema: LeaderboardSchema },
        "text/csv": { schema: z.string().meta({ description: "A header row, then one row per table row." }) },
      },
    },
  },
});
