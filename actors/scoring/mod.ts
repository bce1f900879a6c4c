/**
 * Scoring: scorer v1 (pure functions, exactly docs/scoring.md) — per-prediction validity and Brier
 * scores, the "latest" rule, per-event stats, the per-miner score table, forecasting payouts — and
 * the u16 weights a validator would set from the scores; the scorer over stored rows and the
 * periodic scoring job that fills the ScoreStore (scored events and the score table); the
 * leaderboard view, and the miners' reports of the web pages (`MinerView`, with the figures scorer v1
 * does not produce: reliability bins, weekly Brier, 95 % intervals).
 *
 * @module
 */
export * from "./emit_weights.ts";
export * from "./event_stats.ts";
export * from "./latest_rule.ts";
export * from "./leaderboard.ts";
export * from "./leaderboard_sort.ts";
export * from "./leaderboard_view.ts";
export * from "./miner_events.ts";
export * from "./miner_figures.ts";
export * from "./methodology.ts";
export * from "./miner_fold.ts";
export * from "./miner_scoring.ts";
export * from "./miner_view.ts";
export * from "./page_interval.ts";
export * from "./payouts.ts";
export * from "./prediction_score.ts";
export * from "./prediction_validity.ts";
export * from "./score_stream.ts";
export * from "./score_v1.ts";
export * from "./scored_events.ts";
export * from "./scored_predictions_feed.ts";
export * from "./scorer_input.ts";
export * from "./scoring_math.ts";
export * from "./scoring_job.ts";
export * from "./stored_scoring.ts";
export * from "./trace_summary.ts";
export * from "./baselines.ts";
export * from "./worked_example.ts";
export * from "./board_inputs.ts";
export * from "./board_intervals.ts";
export * from "./window_figures.ts";
