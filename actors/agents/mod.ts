/**
 * Miners' agents: the MinerActor that owns a miner's agent versions (upload with its checks,
 * listing), its typed messages, and the check of an agent's Python source (`agent_main`).
 *
 * @module
 */
export * from "./agent_source.ts";
export * from "./miner_actor.ts";
export * from "./miner_messages.ts";
