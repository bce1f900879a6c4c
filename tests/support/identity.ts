import { type AuditAction, type AuditActor, type AuditEntry, newAuditId } from "../../storage/audit_store.ts";
import type {
  InvitationRecord,
  MemberRecord,
  MemberRole,
  NewCredential,
  PasskeyCredential,
} from "../../storage/member_store.ts";
import type { SessionRecord, SignInVia } from "../../storage/session_store.ts";
import type { Storage } from "../../storage/storage.ts";

/** Records of the dashboard's stores, made plainly for the contract tests. */

export const OPERATOR: AuditActor = { kind: "operator" };

/** An audit entry of `orgId` at `atMs`. */
export function auditOf(
  orgId: string,
  action: AuditAction,
  at: { subject: string; atMs: number },
): AuditEntry {
  return { id: newAuditId(), orgId, atMs: at.atMs, by: OPERATOR, action, subject: at.subject, details: {} };
}

export function invitationOf(
  id: string,
  at: { orgId: string; role?: MemberRole; memberId?: string; nowMs: number; ttlMs?: number },
): InvitationRecord {
  return {
    id,
    orgId: at.orgId,
    role: at.role ?? "owner",
    kind: at.memberId === undefined ? "join" : "reenrol",
    memberId: at.memberId ?? null,
    secretHash: "ab".repeat(32),
    createdAtMs: at.nowMs,
    expiresAtMs: at.nowMs + (at.ttlMs ?? 86_400_000),
  };
}

export function credentialOf(credentialId: string, atMs: number): NewCredential {
  return {
    credentialId,
    publicKey: new Uint8Array([1, 2, 3, credentialId.length]),
    signCount: 0,
    transports: ["internal", "hybrid"],
    createdAtMs: atMs,
  };
}

/** Creates `orgId` and accepts a join invitation as `memberId` with `role`; answers the member. */
export async function addMember(
  storage: Storage,
  at: { orgId: string; memberId: string; role: MemberRole; nowMs: number; credentialId?: string },
): Promise<MemberRecord> {
  await storage.orgs.create({ id: at.orgId, name: at.orgId, createdAtMs: at.nowMs });
  const invitation = invitationOf(`inv_${at.memberId}`, { orgId: at.orgId, role: at.role, nowMs: at.nowMs });
  await storage.members.createInvitation(
    invitation,
    auditOf(at.orgId, "invitation.created", { subject: invitation.id, atMs: at.nowMs }),
  );
  const outcome = await storage.members.acceptInvitation({
    invitationId: invitation.id,
    nowMs: at.nowMs,
    newMember: { id: at.memberId, displayName: `Member ${at.memberId}` },
    credential: credentialOf(at.credentialId ?? `cred_${at.memberId}`, at.nowMs),
    audit: (member) => auditOf(at.orgId, "member.joined", { subject: member.id, atMs: at.nowMs }),
  });
  if (outcome.status !== "accepted") throw new Error(`Cannot add member ${at.memberId}: ${outcome.status}`);
  return outcome.member;
}

export function sessionOf(
  id: string,
  at: { member: MemberRecord; nowMs: number; via?: SignInVia; ttlMs?: number },
): SessionRecord {
  return {
    id,
    secretHash: "cd".repeat(32),
    memberId: at.member.id,
    orgId: at.member.orgId,
    via: at.via ?? { kind: "passkey" },
    createdAtMs: at.nowMs,
    lastSeenAtMs: at.nowMs,
    expiresAtMs: at.nowMs + (at.ttlMs ?? 3_600_000),
  };
}

/** A stored credential as `listCredentials` answers it. */
export function storedCredential(credential: NewCredential, memberId: string): PasskeyCredential {
  return { ...credential, memberId, lastUsedAtMs: null };
}
