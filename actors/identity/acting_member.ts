import { ServiceError } from "../kernel/mod.ts";
import type { AuditActor } from "../../storage/audit_store.ts";
import type { MemberRecord, MemberStore } from "../../storage/member_store.ts";

/**
 * The member `memberId` of organisation `orgId`; 404 `not_found` for one that is not (another
 * organisation's member is not found either: nothing tells them apart).
 */
export async function memberOfOrg(
  members: Pick<MemberStore, "member">,
  orgId: string,
  memberId: string,
): Promise<MemberRecord> {
  const member = await members.member(memberId);
  if (member?.orgId !== orgId) throw new ServiceError("not_found", "Member not found");
  return member;
}

/**
 * Refuses an owner's action on `orgId` unless `by` is the operator or an owner of `orgId`: a
 * member of another organisation gets 404 `not_found`, a viewer 403 `insufficient_role`.
 */
export async function assertOwner(
  members: Pick<MemberStore, "member">,
  orgId: string,
  by: AuditActor,
): Promise<void> {
  if (by.kind === "operator") return;
  const member = await memberOfOrg(members, orgId, by.memberId);
  if (member.role !== "owner") {
    throw new ServiceError("insufficient_role", "Only an owner of the organisation may do this", {
      details: { role: member.role, requiredRole: "owner" },
    });
  }
}
