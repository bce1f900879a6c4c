import type { AuditEntry, AuditValue } from "../../../storage/audit_store.ts";
import { creditAmount } from "../pages/credit_amount.ts";

/** The name a member id is shown by (the member's display name, or what the log recorded of it). */
export type NameOf = (memberId: string) => string;

/** Who made the change, in words. */
export function whoDid(entry: AuditEntry, nameOf: NameOf): string {
  return entry.by.kind === "operator" ? "The operator" : nameOf(entry.by.memberId);
}

function text(value: AuditValue | undefined): string {
  return value === undefined || value === null ? "" : String(value);
}

/** ` ("name")` for a key's recorded name, or nothing. */
function named(name: AuditValue | undefined): string {
  return text(name) === "" ? "" : ` ("${text(name)}")`;
}

/** An owner or a viewer. */
function aRole(role: AuditValue | undefined): string {
  return text(role) === "owner" ? "an owner" : "a viewer";
}

/** What the entry says happened, as a sentence without its subject's author (see `whoDid`). */
export function whatHappened(entry: AuditEntry, nameOf: NameOf): string {
  const { details, subject } = entry;
  switch (entry.action) {
    case "invitation.created":
      return details["kind"] === "reenrol"
        ? `made a re-enrolment link for ${nameOf(text(details["memberId"]))}`
        : `invited ${aRole(details["role"])} (invitation ${subject})`;
    case "invitation.revoked":
      return `revoked invitation ${subject}`;
    case "member.joined":
      return `joined as ${aRole(details["role"])}`;
    case "member.reenrolled":
      return "registered a new passkey with a re-enrolment link";
    case "member.role_changed":
      return `changed the role of ${nameOf(subject)} from ${text(details["from"])} to ${text(details["to"])}`;
    case "member.removed":
      return `removed ${text(details["displayName"]) || subject} (${text(details["role"])})`;
    case "passkey.added":
      return "added a passkey";
    case "passkey.removed":
      return "removed a passkey";
    case "hotkey.registered":
      return `registered hotkey ${subject}`;
    case "hotkey.linked":
      return `linked hotkey ${subject} with a signed proof`;
    case "hotkey.unlinked":
      return `unlinked hotkey ${subject}`;
    case "low_balance.set": {
      const threshold = text(details["thresholdMicro"]);
      if (threshold === "") return "cleared the low-balance warning";
      const credits = /^\d+$/.test(threshold) ? creditAmount(BigInt(threshold)) : threshold;
      return `set the low-balance warning at ${credits} credits`;
    }
    case "key.issued":
      return `made API key ${subject}${named(details["name"])}`;
    case "key.rotated":
      return `rotated API key ${subject}${named(details["name"])}`;
    case "key.revoked":
      return `revoked API key ${subject}${named(details["name"])}`;
    case "hotkey.bound": {
      const memberId = text(details["memberId"]);
      return `bound hotkey ${subject} to ${memberId === "" ? "nobody" : nameOf(memberId)}`;
    }
  }
}
