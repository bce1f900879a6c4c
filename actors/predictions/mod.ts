/**
 * Customer predictions: the score-weighted consensus of the miners' latest valid predictions on an
 * event (pure), which the customer prediction endpoints and the history snapshots serve, and the
 * FreshRunDesk that queues customers' fresh runs (docs/predictions.md "Fresh runs").
 *
 * @module
 */
export * from "./consensus.ts";
export * from "./fresh_runs.ts";
export * from "./fresh_run_desk.ts";
