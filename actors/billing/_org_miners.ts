import { isSs58Address, ServiceError } from "../kernel/mod.ts";
import { assertOwner } from "../identity/mod.ts";
import { type AuditAction, type AuditActor, type AuditEntry, newAuditId } from "../../storage/audit_store.ts";
import type { MemberStore } from "../../storage/member_store.ts";
import type { BindOutcome, OrgStore } from "../../storage/org_store.ts";
import { invalidField } from "./org_account.ts";
import type { MinerReply, OrgMessage } from "./org_messages.ts";

/** The OrgActor's messages that change its miner registrations. */
export type MinerMessage = Extract<
  OrgMessage,
  { type: "registerMiner" | "unregisterMiner" | "setDefaultMiner" | "bindMiner" }
>;

/** What a miner change reads and writes. */
export interface MinerChangeDeps {
  orgs: OrgStore;
  /** Who may change the org's miners as a member (an owner); without it only the operator may. */
  members?: Pick<MemberStore, "member">;
}

const OPERATOR: AuditActor = { kind: "operator" };

/**
 * Applies a miner message of organisation `orgId` in storage: a hotkey is an SS58 address and
 * belongs to one organisation (409 `conflict` otherwise); unregistering, defaulting or binding a
 * hotkey the organisation does not hold is 404 `not_found`. Registering, unlinking and binding
 * write their audit entry in the same commit.
 */
export async function changeMiners(
  deps: MinerChangeDeps,
  orgId: string,
  message: MinerMessage,
  options: { atMs: number },
): Promise<MinerReply["outcome"]> {
  const { orgs } = deps;
  const { hotkey } = message;
  if (!isSs58Address(hotkey)) {
    throw invalidField("hotkey", "Must be an SS58 address with network prefix 42 (Bittensor)");
  }
  const by = message.type === "setDefaultMiner" ? OPERATOR : message.by ?? OPERATOR;
  if (by.kind === "member") {
    if (!deps.members) {
      throw new ServiceError("insufficient_role", "Only the operator may change miners here");
    }
    await assertOwner(deps.members, orgId, by);
  }
  const audit = (action: AuditAction, details: AuditEntry["details"] = {}): AuditEntry => ({
    id: newAuditId(),
    orgId,
    atMs: options.atMs,
    by,
    action,
    subject: hotkey,
    details,
  });
  if (message.type === "registerMiner") {
    const proof = message.proof === true;
    const registered = await orgs.registerMiner(orgId, hotkey, {
      atMs: options.atMs,
      makeDefault: message.makeDefault ?? false,
      proof,
      audit: audit(proof ? "hotkey.linked" : "hotkey.registered"),
    });
    if (registered === "taken") {
      throw new ServiceError("conflict", "Miner hotkey is registered to another organisation", {
        details: { hotkey },
      });
    }
    return registered;
  }
  if (message.type === "bindMiner") {
    const bound = await orgs.bindMiner(orgId, hotkey, {
      memberId: message.memberId,
      audit: audit("hotkey.bound", { memberId: message.memberId }),
    });
    refuseBinding(bound, hotkey);
    return "bound";
  }
  const done = message.type === "unregisterMiner"
    ? await orgs.unregisterMiner(orgId, hotkey, { audit: audit("hotkey.unlinked") })
    : await orgs.setDefaultMiner(orgId, hotkey);
  if (!done) throw new ServiceError("not_found", "Miner hotkey is not registered to this organisation");
  return message.type === "unregisterMiner" ? "unregistered" : "default";
}

function refuseBinding(outcome: BindOutcome, hotkey: string): void {
  if (outcome === "not_found") {
    throw new ServiceError("not_found", "Miner hotkey is not registered to this organisation");
  }
  if (outcome === "no_member") throw new ServiceError("not_found", "Member not found");
  if (outcome === "not_linked_with_proof") {
    throw new ServiceError(
      "conflict",
      "This hotkey was registered without proof: link it with a signed proof before it may sign in",
      { details: { hotkey } },
    );
  }
}
