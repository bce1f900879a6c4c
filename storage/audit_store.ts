/** Who made a change: the operator (admin API or CLI), or a member of the organisation. */
export type AuditActor = { kind: "operator" } | { kind: "member"; memberId: string };

/** What changed. Dashboard areas add theirs here (one list, so the log reads the same everywhere). */
export const AUDIT_ACTIONS = [
  "invitation.created",
  "invitation.revoked",
  "member.joined",
  "member.reenrolled",
  "member.role_changed",
  "member.removed",
  "passkey.added",
  "passkey.removed",
  "hotkey.registered",
  "hotkey.linked",
  "hotkey.unlinked",
  "hotkey.bound",
  "low_balance.set",
  // API keys a member issues, rotates or revokes in the dashboard (details: the key's name).
  "key.issued",
  "key.rotated",
  "key.revoked",
] as const;

/** One of `AUDIT_ACTIONS`. */
export type AuditAction = typeof AUDIT_ACTIONS[number];

/** A value of an entry's details: never a secret (no token, challenge or key). */
export type AuditValue = string | number | boolean | null;

/** One change of an organisation, written in the same atomic write as the change where it can be. */
export interface AuditEntry {
  /** Orders entries of the same millisecond: written later on one instance, greater (`newAuditId`). */
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

/** This process's count of audit ids made, so that ids made later sort after. */
let made = 0;

/**
 * An audit id: this process's sequence number (12 hex digits), then 8 random bytes (hex), so the
 * entries one instance writes in the same millisecond list in the order they were made.
 */
export function newAuditId(): string {
  made = (made + 1) % 2 ** 48;
  const random = Array.from(
    crypto.getRandomValues(new Uint8Array(8)),
    (b) => b.toString(16).padStart(2, "0"),
  );
  return `${made.toString(16).padStart(12, "0")}${random.join("")}`;
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
