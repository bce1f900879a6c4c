/** Who made a change: the operator (admin API or CLI), or a member of the organisation. */
export type AuditActor = { kind: "operator" } | { kind: "member"; memberId: string };

/** What changed. Dashboard areas add theirs here (one list, so the log reads the same everywhere). */
export type AuditAction =
  | "invitation.created"
  | "invitation.revoked"
  | "member.joined"
  | "member.reenrolled"
  | "member.role_changed"
  | "member.removed"
  | "passkey.added"
  | "passkey.removed"
  | "hotkey.registered"
  | "hotkey.linked"
  | "hotkey.unlinked"
  | "hotkey.bound";

/** A value of an entry's details: never a secret (no token, challenge or key). */
export type AuditValue = string | number | boolean | null;

/** One change of an organisation, written in the same atomic write as the change where it can be. */
export interface AuditEntry {
  /** Random; orders entries of the same millisecond (`newAuditId`). */
  id: string;
  orgId: string;
  atMs: number;
  by: AuditActor;
  action: AuditAction;
  /** What the action is about: a member id, an invitation id, a credential id, a hotkey. */
  subject: string;
  details: Record<string, AuditValue>;
}

/** Where a page of the log starts: after this entry (newest first). */
export interface AuditPosition {
  atMs: number;
  id: string;
}

/** An audit id: 16 random bytes, lowercase hex. */
export function newAuditId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/**
 * Port for an organisation's audit log. The stores that make a change write its entry in the
 * same commit (`MemberStore`, `OrgStore`); `append` is for a change no store write carries.
 */
export interface AuditStore {
  append(entry: AuditEntry): Promise<void>;
  /** Entries of `orgId`, newest first (`atMs`, then `id`, descending), after `before` when given. */
  list(orgId: string, page: { limit: number; before?: AuditPosition }): Promise<AuditEntry[]>;
}
