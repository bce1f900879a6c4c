import type { Sql, TransactionSql } from "postgres";
import type { AuditEntry } from "../audit_store.ts";
import type {
  AcceptInvitation,
  AcceptOutcome,
  CredentialRemoval,
  InvitationRecord,
  MemberChange,
  MemberRecord,
  MemberRole,
  MemberStore,
  PasskeyCredential,
} from "../member_store.ts";
import {
  insertAudit,
  type InvitationRow,
  lockRoster,
  type MemberRow,
  toInvitation,
  toMember,
} from "./_pg_identity_rows.ts";
import { PgCredentials } from "./_pg_credentials.ts";

/**
 * Members, invitations and passkeys in PostgreSQL. A write that changes an org's members takes the
 * org's roster lock (`lockRoster`) first, so the owner count it reads holds until it commits.
 */
export class PgMemberStore implements MemberStore {
  readonly #sql: Sql;
  readonly #credentials: PgCredentials;

  constructor(sql: Sql) {
    this.#sql = sql;
    this.#credentials = new PgCredentials(sql);
  }

  async member(memberId: string): Promise<MemberRecord | null> {
    const [row] = await this.#sql<MemberRow[]>`SELECT * FROM members WHERE id = ${memberId}`;
    return row ? toMember(row) : null;
  }

  async listMembers(orgId: string): Promise<MemberRecord[]> {
    const rows = await this.#sql<MemberRow[]>`
      SELECT * FROM members WHERE org_id = ${orgId} ORDER BY created_at_ms, id COLLATE "C"`;
    return rows.map(toMember);
  }

  createInvitation(invitation: InvitationRecord, audit: AuditEntry): Promise<boolean> {
    return this.#sql.begin(async (tx) => {
      if (invitation.memberId !== null) {
        await lockRoster(tx, invitation.orgId);
        const [member] = await tx`
          SELECT 1 FROM members WHERE id = ${invitation.memberId} AND org_id = ${invitation.orgId}`;
        if (!member) return false;
      }
      await tx`
        INSERT INTO member_invitations
          (id, org_id, role, kind, member_id, secret_hash, created_at_ms, expires_at_ms)
        VALUES (${invitation.id}, ${invitation.orgId}, ${invitation.role}, ${invitation.kind},
          ${invitation.memberId}, ${invitation.secretHash}, ${invitation.createdAtMs}, ${invitation.expiresAtMs})`;
      await insertAudit(tx, audit);
      return true;
    });
  }

  async invitation(invitationId: string): Promise<InvitationRecord | null> {
    const [row] = await this.#sql<
      InvitationRow[]
    >`SELECT * FROM member_invitations WHERE id = ${invitationId}`;
    return row ? toInvitation(row) : null;
  }

  async listInvitations(orgId: string, options: { nowMs: number }): Promise<InvitationRecord[]> {
    const rows = await this.#sql<InvitationRow[]>`
      SELECT * FROM member_invitations WHERE org_id = ${orgId} AND expires_at_ms > ${options.nowMs}
      ORDER BY created_at_ms, id COLLATE "C"`;
    return rows.map(toInvitation);
  }

  revokeInvitation(orgId: string, invitationId: string, audit: AuditEntry): Promise<boolean> {
    return this.#sql.begin(async (tx) => {
      const gone = await tx`
        DELETE FROM member_invitations WHERE id = ${invitationId} AND org_id = ${orgId} RETURNING id`;
      if (gone.length === 0) return false;
      await insertAudit(tx, audit);
      return true;
    });
  }

  acceptInvitation(request: AcceptInvitation): Promise<AcceptOutcome> {
    return this.#sql.begin(async (tx) => {
      const [row] = await tx<InvitationRow[]>`
        SELECT * FROM member_invitations WHERE id = ${request.invitationId} AND expires_at_ms > ${request.nowMs}`;
      if (!row) return { status: "gone" } as const;
      const invitation = toInvitation(row);
      await lockRoster(tx, invitation.orgId);
      // Used up by the statement that deletes it: a second acceptance finds nothing to delete.
      const used = await tx`DELETE FROM member_invitations WHERE id = ${invitation.id} RETURNING id`;
      if (used.length === 0) return { status: "gone" } as const;
      const member = invitation.memberId === null
        ? await insertMember(tx, invitation, request)
        : await memberOf(tx, invitation.memberId, invitation.orgId);
      if (!member) return { status: "gone" } as const;
      const stored = await this.#credentials.insert(tx, {
        ...request.credential,
        memberId: member.id,
        lastUsedAtMs: null,
      });
      // Thrown, so the transaction rolls back and the invitation stays unused.
      if (!stored) throw new CredentialTaken();
      await insertAudit(tx, request.audit(member, invitation));
      return { status: "accepted", member, invitation } as const;
    }).catch((error) => {
      if (error instanceof CredentialTaken) return { status: "credential_taken" } as const;
      throw error;
    });
  }

  changeRole(
    orgId: string,
    memberId: string,
    options: { role: MemberRole; audit: AuditEntry },
  ): Promise<MemberChange> {
    return this.#sql.begin(async (tx): Promise<MemberChange> => {
      await lockRoster(tx, orgId);
      const member = await memberOf(tx, memberId, orgId);
      if (!member) return "not_found";
      if (member.role === options.role) return "unchanged";
      if (member.role === "owner" && await ownerCount(tx, orgId) <= 1) return "last_owner";
      await tx`UPDATE members SET role = ${options.role} WHERE id = ${memberId}`;
      await insertAudit(tx, options.audit);
      return "changed";
    });
  }

  removeMember(orgId: string, memberId: string, audit: AuditEntry): Promise<MemberChange> {
    return this.#sql.begin(async (tx): Promise<MemberChange> => {
      await lockRoster(tx, orgId);
      const member = await memberOf(tx, memberId, orgId);
      if (!member) return "not_found";
      if (member.role === "owner" && await ownerCount(tx, orgId) <= 1) return "last_owner";
      await tx`DELETE FROM passkey_credentials WHERE member_id = ${memberId}`;
      await tx`DELETE FROM member_invitations WHERE member_id = ${memberId}`;
      await tx`DELETE FROM dashboard_sessions WHERE member_id = ${memberId}`;
      await tx`UPDATE org_miners SET bound_member_id = NULL WHERE bound_member_id = ${memberId}`;
      await tx`DELETE FROM members WHERE id = ${memberId}`;
      await insertAudit(tx, audit);
      return "changed";
    });
  }

  addCredential(credential: PasskeyCredential, audit: AuditEntry): Promise<"added" | "no_member" | "taken"> {
    return this.#sql.begin(async (tx) => {
      const [row] = await tx<MemberRow[]>`SELECT * FROM members WHERE id = ${credential.memberId}`;
      if (!row) return "no_member" as const;
      await lockRoster(tx, row.org_id);
      if (!(await memberOf(tx, credential.memberId, row.org_id))) return "no_member" as const;
      if (!(await this.#credentials.insert(tx, credential))) return "taken" as const;
      await insertAudit(tx, audit);
      return "added" as const;
    });
  }

  credential(credentialId: string): Promise<PasskeyCredential | null> {
    return this.#credentials.get(credentialId);
  }

  listCredentials(memberId: string): Promise<PasskeyCredential[]> {
    return this.#credentials.list(memberId);
  }

  removeCredential(memberId: string, credentialId: string, audit: AuditEntry): Promise<CredentialRemoval> {
    return this.#sql.begin(async (tx): Promise<CredentialRemoval> => {
      // The member's row locked first: a removal of another of its passkeys (from any instance)
      // waits here until this one commits, then counts what this one left.
      const [member] = await tx`SELECT 1 FROM members WHERE id = ${memberId} FOR NO KEY UPDATE`;
      if (!member) return "not_found";
      const [count] = await tx<{ passkeys: bigint; matching: bigint }[]>`
        SELECT count(*) AS passkeys, count(*) FILTER (WHERE credential_id = ${credentialId}) AS matching
        FROM passkey_credentials WHERE member_id = ${memberId}`;
      if (Number(count?.matching ?? 0n) === 0) return "not_found";
      if (Number(count?.passkeys ?? 0n) <= 1) return "last";
      await tx`DELETE FROM passkey_credentials WHERE credential_id = ${credentialId} AND member_id = ${memberId}`;
      await insertAudit(tx, audit);
      return "removed";
    });
  }

  recordCredentialUse(
    credentialId: string,
    use: { expectedSignCount: number; signCount: number; atMs: number },
  ): Promise<boolean> {
    return this.#credentials.recordUse(credentialId, use);
  }

  async purgeExpiredInvitations(nowMs: number): Promise<number> {
    const gone = await this.#sql`DELETE FROM member_invitations WHERE expires_at_ms <= ${nowMs} RETURNING id`;
    return gone.length;
  }
}

/** Thrown inside the acceptance transaction to roll it back when the credential id is taken. */
class CredentialTaken extends Error {}

async function memberOf(tx: TransactionSql, memberId: string, orgId: string): Promise<MemberRecord | null> {
  const [row] = await tx<MemberRow[]>`
    SELECT * FROM members WHERE id = ${memberId} AND org_id = ${orgId} FOR UPDATE`;
  return row ? toMember(row) : null;
}

async function ownerCount(tx: TransactionSql, orgId: string): Promise<number> {
  const [row] = await tx<{ owners: bigint }[]>`
    SELECT count(*) AS owners FROM members WHERE org_id = ${orgId} AND role = 'owner'`;
  return Number(row?.owners ?? 0n);
}

async function insertMember(
  tx: TransactionSql,
  invitation: InvitationRecord,
  request: AcceptInvitation,
): Promise<MemberRecord> {
  const member: MemberRecord = {
    id: request.newMember.id,
    orgId: invitation.orgId,
    displayName: request.newMember.displayName,
    role: invitation.role,
    createdAtMs: request.nowMs,
  };
  await tx`
    INSERT INTO members (id, org_id, display_name, role, created_at_ms)
    VALUES (${member.id}, ${member.orgId}, ${member.displayName}, ${member.role}, ${member.createdAtMs})`;
  return member;
}
