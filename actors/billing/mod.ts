/**
 * Organisations and money: the OrgActor owns an organisation's balance, holds, ledger and miners; its typed messages; the hold-expiry job and the purge of spend counters.
 *
 * @module
 */
export * from "./hold_expiry_job.ts";
export * from "./org_account.ts";
export * from "./org_actor.ts";
export * from "./org_messages.ts";
export * from "./spend_counter_purge_job.ts";
