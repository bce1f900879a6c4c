/**
 * The LLM relay of `deno task validate` (docs/agents.md, "LLM calls"): one per run, on a Unix
 * socket, forwarding the agent's calls to the gateway's validator route for the run's lease and
 * miner, signed as the validator.
 *
 * @module
 */
export { type Relay, RELAY_LIMITS, type RelayLimits, type RelayOptions, startRelay } from "./relay.ts";
export type { RelayStats } from "./relay_calls.ts";
export { type RelayLease, VALIDATOR_COMPLETIONS_PATH } from "./relay_forward.ts";
