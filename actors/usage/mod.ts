/**
 * Usage views: an organisation's spend and calls per local day and key, model, provider, miner or
 * validator, and its miners' LLM spend by validator and by lease outcome, read from the usage
 * summary the billing store writes with each usage record.
 *
 * @module
 */
export * from "./lease_spend_report.ts";
export * from "./local_days.ts";
export * from "./usage_report.ts";
