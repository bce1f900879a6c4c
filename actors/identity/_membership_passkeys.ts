import { ServiceError } from "../kernel/mod.ts";
import type { AuditAction, AuditActor, AuditEntry, AuditValue } from "../../storage/audit_store.ts";
import type { MemberStore, PasskeyCredential } from "../../storage/member_store.ts";
import { memberOfOrg } from "./acting_member.ts";
import type { MembershipMessage } from "./membership_messages.ts";

type PasskeyMessage = Extract<MembershipMessage, { type: "addPasskey" | "removePasskey" }>;
type MakeAudit = (
  action: AuditAction,
  at: { by: AuditActor; subject: string; details: Record<string, AuditValue> },
) => AuditEntry;

/**
 * A member adds or removes one of its own passkeys (the route signed it in as `memberId`): 404
 * for a member not of this organisation or a passkey not its own, 409 for a credential id taken,
 * and 409 `conflict` with the rule `last_passkey` for the member's last passkey (the store decides
 * it in the removal's own commit, so two removals at once cannot both pass it).
 */
export async function passkeyChange(
  deps: { members: MemberStore },
  orgId: string,
  message: PasskeyMessage,
  audit: MakeAudit,
): Promise<{ credential: PasskeyCredential } | { credentialId: string }> {
  const { members } = deps;
  const member = await memberOfOrg(members, orgId, message.memberId);
  const by: AuditActor = { kind: "member", memberId: member.id };
  if (message.type === "removePasskey") {
    const entry = audit("passkey.removed", { by, subject: message.credentialId, details: {} });
    const removal = await members.removeCredential(member.id, message.credentialId, entry);
    if (removal === "not_found") throw new ServiceError("not_found", "Passkey not found");
    if (removal === "last") {
      throw new ServiceError(
        "conflict",
        "This is your only passkey: add another before removing it, or you could not sign in again.",
        { details: { rule: "last_passkey" } },
      );
    }
    return { credentialId: message.credentialId };
  }
  const credential: PasskeyCredential = { ...message.credential, memberId: member.id, lastUsedAtMs: null };
  const entry = audit("passkey.added", { by, subject: credential.credentialId, details: {} });
  const added = await members.addCredential(credential, entry);
  if (added === "no_member") throw new ServiceError("not_found", "Member not found");
  if (added === "taken") throw new ServiceError("conflict", "This passkey is registered already");
  return { credential };
}
