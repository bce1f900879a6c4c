/**
 * Customer predictions: the score-weighted consensus of the miners' latest valid predictions on an
 * event (pure); the reader the customer prediction endpoints serve it from (events from the catalog
 * view, stored predictions in one storage call per batch, scores of the leaderboard view); the
 * periodic snapshot job that records it as forecast history; and the FreshRunDesk that queues
 * customers' fresh runs (docs/predictions.md "Fresh runs").
 *
 * @module
 */
export * from "./consensus.ts";
export * from "./fresh_runs.ts";
export * from "./fresh_run_desk.ts";
export * from "./customer_prediction.ts";
export * from "./forecast_history.ts";
export * from "./prediction_reader.ts";
export * from "./prediction_snapshot_job.ts";
export * from "./digest_reads.ts";
export * from "./prediction_cache.ts";
