/**
 * Organisations and money: the OrgActor owns an organisation's balance, holds, ledger and miners; its typed messages; and the hold-expiry job.
 *
 * @module
 */
export * from "./hold_expiry_job.ts";
export * from "./org_account.ts";
export * from "./org_actor.ts";
export * from "./org_messages.ts";
