import type { AuditEntry } from "./audit_store.ts";

/** `owner`: everything the dashboard does; `viewer`: reads only. */
export type MemberRole = "owner" | "viewer";

/** A person of one organisation (a member belongs to exactly one). */
export interface MemberRecord {
  id: string;
  orgId: string;
  displayName: string;
  role: MemberRole;
  createdAtMs: number;
}

/**
 * A single-use sign-in link: `join` makes a new member with `role`; `reenrol` gives `memberId`
 * (who lost every passkey) a new passkey. Only a hash of its secret is stored.
 */
export interface InvitationRecord {
  id: string;
  orgId: string;
  role: MemberRole;
  kind: "join" | "reenrol";
  /** The member a `reenrol` invitation is for; null for `join`. */
  memberId: string | null;
  /** Lowercase hex SHA-256 of the link's secret. */
  secretHash: string;
  createdAtMs: number;
  expiresAtMs: number;
}

/** A WebAuthn credential (passkey) of a member, as a verified registration gives it. */
export interface PasskeyCredential {
  /** The credential id, base64url. Unique across the service. */
  credentialId: string;
  memberId: string;
  /** The COSE public key. */
  publicKey: Uint8Array;
  /** The authenticator's signature counter (0 for authenticators that keep none). */
  signCount: number;
  /** Transport hints (`internal`, `hybrid`, `usb`, …) for later sign-ins. */
  transports: string[];
  createdAtMs: number;
  lastUsedAtMs: number | null;
}

/** A credential as the invitation's ceremony stores it (its member is known only at acceptance). */
export type NewCredential = Omit<PasskeyCredential, "memberId" | "lastUsedAtMs">;

/** What accepting an invitation writes, in one atomic step. */
export interface AcceptInvitation {
  invitationId: string;
  nowMs: number;
  /** The member a `join` invitation creates (id and name); not used for `reenrol`. */
  newMember: { id: string; displayName: string };
  credential: NewCredential;
  /** The entry written with it, made once the member is known. */
  audit(member: MemberRecord, invitation: InvitationRecord): AuditEntry;
}

/**
 * `accepted`: the invitation is used up, the member exists, the credential is stored.
 * `gone`: no such invitation (never made, used, revoked), it expired, or its member was removed.
 * `credential_taken`: that credential id is stored already (nothing was written).
 */
export type AcceptOutcome =
  | { status: "accepted"; member: MemberRecord; invitation: InvitationRecord }
  | { status: "gone" }
  | { status: "credential_taken" };

/** `last_owner`: the change would leave the organisation without an owner (nothing was written). */
export type MemberChange = "changed" | "unchanged" | "not_found" | "last_owner";

/**
 * `removed`: the passkey is deleted. `not_found`: the member has no such passkey. `last`: it is the
 * member's only passkey, which is never removed (nothing was written).
 */
export type CredentialRemoval = "removed" | "not_found" | "last";

/**
 * Port for an organisation's members, invitations and passkeys. Every write that changes who is a
 * member or what role one has is serialised per organisation (KV: a roster version checked and
 * bumped; PostgreSQL: an advisory lock on the org), so the rule "an organisation keeps an owner"
 * holds between instances. Each write carries its audit entry in the same commit.
 */
export interface MemberStore {
  member(memberId: string): Promise<MemberRecord | null>;
  /** The org's members, oldest first. */
  listMembers(orgId: string): Promise<MemberRecord[]>;

  /**
   * Stores an invitation; for `reenrol`, only while its member is a member of the org
   * (false otherwise, nothing written).
   */
  createInvitation(invitation: InvitationRecord, audit: AuditEntry): Promise<boolean>;
  invitation(invitationId: string): Promise<InvitationRecord | null>;
  /** The org's invitations not yet expired at `nowMs`, oldest first. */
  listInvitations(orgId: string, options: { nowMs: number }): Promise<InvitationRecord[]>;
  /** Deletes an invitation of `orgId`; false when there was none. */
  revokeInvitation(orgId: string, invitationId: string, audit: AuditEntry): Promise<boolean>;
  /**
   * Uses up the invitation, creates its member (`join`) or takes its member (`reenrol`), and
   * stores the credential, all in one atomic write.
   */
  acceptInvitation(request: AcceptInvitation): Promise<AcceptOutcome>;

  /** Sets a member's role; refused with `last_owner` when it demotes the org's last owner. */
  changeRole(
    orgId: string,
    memberId: string,
    options: { role: MemberRole; audit: AuditEntry },
  ): Promise<MemberChange>;
  /**
   * Removes a member with its passkeys, its sessions, its re-enrolment invitations and its
   * hotkey bindings; refused with `last_owner` when it is the org's last owner.
   */
  removeMember(orgId: string, memberId: string, audit: AuditEntry): Promise<MemberChange>;

  /** Stores another passkey of a member: `no_member` when it is not one, `taken` when the credential id is stored. */
  addCredential(credential: PasskeyCredential, audit: AuditEntry): Promise<"added" | "no_member" | "taken">;
  credential(credentialId: string): Promise<PasskeyCredential | null>;
  /** A member's passkeys, oldest first. */
  listCredentials(memberId: string): Promise<PasskeyCredential[]>;
  /**
   * Deletes one passkey of `memberId`, unless it is the member's last (`last`). The count it
   * decides on holds until the deletion commits (KV: the member's passkey version checked and
   * bumped; PostgreSQL: the member's row locked), so two removals at once, from two instances too,
   * never leave the member without a passkey.
   */
  removeCredential(memberId: string, credentialId: string, audit: AuditEntry): Promise<CredentialRemoval>;
  /**
   * Records a sign-in with the passkey: its new counter and when. Conditional on the counter
   * stored being `expectedSignCount` (false when it moved meanwhile, or the passkey is gone).
   */
  recordCredentialUse(
    credentialId: string,
    use: { expectedSignCount: number; signCount: number; atMs: number },
  ): Promise<boolean>;

  /** Deletes invitations expired at `nowMs`; answers how many. */
  purgeExpiredInvitations(nowMs: number): Promise<number>;
}
