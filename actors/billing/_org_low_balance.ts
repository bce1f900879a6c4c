import { assertOwner } from "../identity/mod.ts";
import { type AuditActor, newAuditId } from "../../storage/audit_store.ts";
import type { BillingStore } from "../../storage/billing_store.ts";
import type { MemberStore } from "../../storage/member_store.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import { available, requireAmount } from "./org_account.ts";
import type { LowBalanceReply, OrgMessage } from "./org_messages.ts";

/** The OrgActor's messages about its low-balance warning. */
export type LowBalanceMessage = Extract<OrgMessage, { type: "lowBalance" | "setLowBalance" }>;

const OPERATOR: AuditActor = { kind: "operator" };

/**
 * Answers a low-balance message of organisation `orgId` (which exists): sets the threshold first
 * when asked (400 naming `thresholdMicro` outside 0 to 2^63 − 1; a member who is not an owner 403),
 * with its audit entry, then reads it with the account.
 */
export async function lowBalance(
  stores: {
    orgs: OrgStore;
    billing: BillingStore;
    members?: Pick<MemberStore, "member">;
    clock: () => number;
  },
  orgId: string,
  message: LowBalanceMessage,
): Promise<LowBalanceReply> {
  if (message.type === "setLowBalance") {
    const { thresholdMicro } = message;
    if (thresholdMicro !== null) requireAmount(thresholdMicro, { field: "thresholdMicro", min: 0n });
    const by = message.by ?? OPERATOR;
    if (by.kind === "member") {
      if (!stores.members) throw new Error("Cannot check a member's role: the OrgActor has no member store");
      await assertOwner(stores.members, orgId, by);
    }
    const audit = {
      id: newAuditId(),
      orgId,
      atMs: stores.clock(),
      by,
      action: "low_balance.set" as const,
      subject: orgId,
      details: { thresholdMicro: thresholdMicro?.toString() ?? null },
    };
    if (!(await stores.orgs.setLowBalance(orgId, thresholdMicro, { audit }))) {
      throw new Error(`Cannot set the low-balance threshold: organisation ${orgId} vanished`);
    }
  }
  const [thresholdMicro, account] = await Promise.all([
    stores.orgs.lowBalance(orgId),
    stores.billing.getAccount(orgId),
  ]);
  if (!account) throw new Error(`Cannot read account: organisation ${orgId} has none`);
  const availableMicro = available(account);
  return {
    thresholdMicro,
    availableMicro,
    below: thresholdMicro !== null && availableMicro < thresholdMicro,
  };
}
