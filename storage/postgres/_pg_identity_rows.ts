import type { Sql, TransactionSql } from "postgres";
import type { AuditEntry } from "../audit_store.ts";
import type { InvitationRecord, MemberRecord, MemberRole, PasskeyCredential } from "../member_store.ts";
import type { MinerRegistration } from "../org_store.ts";
import type { SessionRecord } from "../session_store.ts";

/** Rows of the dashboard's tables (migration 022) and what every identity write shares. */

export interface MemberRow {
  id: string;
  org_id: string;
  display_name: string;
  role: MemberRole;
  created_at_ms: bigint;
}

export function toMember(row: MemberRow): MemberRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    displayName: row.display_name,
    role: row.role,
    createdAtMs: Number(row.created_at_ms),
  };
}

export interface InvitationRow {
  id: string;
  org_id: string;
  role: MemberRole;
  kind: "join" | "reenrol";
  member_id: string | null;
  secret_hash: string;
  created_at_ms: bigint;
  expires_at_ms: bigint;
}

export function toInvitation(row: InvitationRow): InvitationRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    role: row.role,
    kind: row.kind,
    memberId: row.member_id,
    secretHash: row.secret_hash,
    createdAtMs: Number(row.created_at_ms),
    expiresAtMs: Number(row.expires_at_ms),
  };
}

export interface CredentialRow {
  credential_id: string;
  member_id: string;
  public_key: Uint8Array;
  sign_count: bigint;
  transports: string[];
  created_at_ms: bigint;
  last_used_at_ms: bigint | null;
}

export function toCredential(row: CredentialRow): PasskeyCredential {
  return {
    credentialId: row.credential_id,
    memberId: row.member_id,
    publicKey: new Uint8Array(row.public_key),
    signCount: Number(row.sign_count),
    transports: [...row.transports],
    createdAtMs: Number(row.created_at_ms),
    lastUsedAtMs: row.last_used_at_ms === null ? null : Number(row.last_used_at_ms),
  };
}

export interface SessionRow {
  id: string;
  secret_hash: string;
  member_id: string;
  org_id: string;
  via_hotkey: string | null;
  created_at_ms: bigint;
  last_seen_at_ms: bigint;
  expires_at_ms: bigint;
}

export function toSession(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    secretHash: row.secret_hash,
    memberId: row.member_id,
    orgId: row.org_id,
    via: row.via_hotkey === null ? { kind: "passkey" } : { kind: "hotkey", hotkey: row.via_hotkey },
    createdAtMs: Number(row.created_at_ms),
    lastSeenAtMs: Number(row.last_seen_at_ms),
    expiresAtMs: Number(row.expires_at_ms),
  };
}

export interface MinerRow {
  hotkey: string;
  org_id: string;
  registered_at_ms: bigint;
  linked_with_proof: boolean;
  bound_member_id: string | null;
}

export function toMiner(row: MinerRow): MinerRegistration {
  return {
    hotkey: row.hotkey,
    orgId: row.org_id,
    registeredAtMs: Number(row.registered_at_ms),
    linkedWithProof: row.linked_with_proof,
    boundMemberId: row.bound_member_id,
  };
}

/** Inserts an audit entry (in the caller's transaction, beside the change it records). */
export async function insertAudit(sql: Sql | TransactionSql, entry: AuditEntry): Promise<void> {
  const memberId = entry.by.kind === "member" ? entry.by.memberId : null;
  await sql`
    INSERT INTO audit_log (org_id, at_ms, id, by_kind, by_member_id, action, subject, details)
    VALUES (${entry.orgId}, ${entry.atMs}, ${entry.id}, ${entry.by.kind}, ${memberId}, ${entry.action},
      ${entry.subject}, ${sql.json(entry.details)})`;
}

/**
 * Serialises the writes that change an org's members, roles or hotkey bindings (the last-owner
 * rule is decided under it), for the rest of the transaction.
 */
export async function lockRoster(tx: TransactionSql, orgId: string): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(hashtext(${"member_roster:" + orgId}))`;
}
