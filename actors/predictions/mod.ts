/**
 * Customer predictions: the score-weighted consensus of the miners' latest valid predictions on an
 * event (pure), which the customer prediction endpoints and the history snapshots serve.
 *
 * @module
 */
export * from "./consensus.ts";
export * from "./fresh_runs.ts";
