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
import { LOST, type Lost, retryConditional } from "../retry_conditional.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { identityKeys as keys } from "./_identity_keys.ts";
import {
  bumpRoster,
  deleteInvitation,
  getAll,
  idsUnder,
  putAudit,
  putInvitation,
  readRoster,
} from "./_kv_identity_writes.ts";
import { KvCredentials } from "./_kv_credentials.ts";
import { ownerCount, removeMemberOnce } from "./_kv_member_removal.ts";

const MAX_ATTEMPTS = 20;

/**
 * Members, invitations and passkeys in Deno KV. Writes that change an org's members check and
 * bump its roster version (`identityKeys.roster`), so two of them never both commit on what the
 * other changed: the last-owner rule holds between instances.
 */
export class KvMemberStore implements MemberStore {
  readonly #kv: Deno.Kv;
  readonly #credentials: KvCredentials;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
    this.#credentials = new KvCredentials(kv);
  }

  async member(memberId: string): Promise<MemberRecord | null> {
    return (await this.#kv.get<MemberRecord>(keys.member(memberId))).value;
  }

  async listMembers(orgId: string): Promise<MemberRecord[]> {
    const ids = await idsUnder(this.#kv, keys.orgMembers(orgId));
    const entries = await getAll<MemberRecord>(this.#kv, ids.map((id) => keys.member(id)));
    return entries.flatMap((entry) => entry.value ? [entry.value] : [])
      .toSorted((a, b) => a.createdAtMs - b.createdAtMs || a.id.localeCompare(b.id));
  }

  createInvitation(invitation: InvitationRecord, audit: AuditEntry): Promise<boolean> {
    return this.#retry("create invitation", async () => {
      const member = invitation.memberId === null
        ? null
        : await this.#kv.get<MemberRecord>(keys.member(invitation.memberId));
      if (member && member.value?.orgId !== invitation.orgId) return false;
      const result = await commitAtomic(() => {
        const op = this.#kv.atomic().check({ key: keys.invitation(invitation.id), versionstamp: null });
        if (member) op.check(member);
        putInvitation(op, invitation);
        putAudit(op, audit);
        return op;
      });
      return result.ok ? true : LOST;
    });
  }

  async invitation(invitationId: string): Promise<InvitationRecord | null> {
    return (await this.#kv.get<InvitationRecord>(keys.invitation(invitationId))).value;
  }

  async listInvitations(orgId: string, options: { nowMs: number }): Promise<InvitationRecord[]> {
    const ids = await idsUnder(this.#kv, keys.orgInvitations(orgId));
    const entries = await getAll<InvitationRecord>(this.#kv, ids.map((id) => keys.invitation(id)));
    return entries.flatMap((entry) =>
      entry.value && entry.value.expiresAtMs > options.nowMs ? [entry.value] : []
    )
      .toSorted((a, b) => a.createdAtMs - b.createdAtMs || a.id.localeCompare(b.id));
  }

  revokeInvitation(orgId: string, invitationId: string, audit: AuditEntry): Promise<boolean> {
    return this.#retry("revoke invitation", async () => {
      const entry = await this.#kv.get<InvitationRecord>(keys.invitation(invitationId));
      if (entry.value?.orgId !== orgId) return false;
      const invitation = entry.value;
      const result = await commitAtomic(() => {
        const op = this.#kv.atomic().check(entry);
        deleteInvitation(op, invitation);
        putAudit(op, audit);
        return op;
      });
      return result.ok ? true : LOST;
    });
  }

  acceptInvitation(request: AcceptInvitation): Promise<AcceptOutcome> {
    return this.#retry("accept invitation", () => this.#acceptOnce(request));
  }

  async #acceptOnce(request: AcceptInvitation): Promise<AcceptOutcome | Lost> {
    const { credential, nowMs } = request;
    const [entry, existing] = await this.#kv.getMany<[InvitationRecord, PasskeyCredential]>([
      keys.invitation(request.invitationId),
      keys.credential(credential.credentialId),
    ]);
    const invitation = entry.value;
    if (!invitation || invitation.expiresAtMs <= nowMs) return { status: "gone" };
    if (existing.value) return { status: "credential_taken" };
    const roster = await readRoster(this.#kv, invitation.orgId);
    const memberId = invitation.memberId ?? request.newMember.id;
    const memberEntry = await this.#kv.get<MemberRecord>(keys.member(memberId));
    const member: MemberRecord | null = invitation.memberId === null
      ? {
        id: memberId,
        orgId: invitation.orgId,
        displayName: request.newMember.displayName,
        role: invitation.role,
        createdAtMs: nowMs,
      }
      : memberEntry.value;
    if (!member || member.orgId !== invitation.orgId) return { status: "gone" };
    const result = await commitAtomic(() => {
      const op = this.#kv.atomic().check(entry).check(existing).check(memberEntry);
      bumpRoster(op, invitation.orgId, roster);
      deleteInvitation(op, invitation);
      op.set(keys.member(member.id), member).set(keys.orgMember(member.orgId, member.id), null);
      this.#credentials.put(op, { ...credential, memberId: member.id, lastUsedAtMs: null });
      putAudit(op, request.audit(member, invitation));
      return op;
    });
    return result.ok ? { status: "accepted", member, invitation } : LOST;
  }

  changeRole(
    orgId: string,
    memberId: string,
    options: { role: MemberRole; audit: AuditEntry },
  ): Promise<MemberChange> {
    return this.#retry("change role", async () => {
      const roster = await readRoster(this.#kv, orgId);
      const entry = await this.#kv.get<MemberRecord>(keys.member(memberId));
      const member = entry.value;
      if (member?.orgId !== orgId) return "not_found";
      if (member.role === options.role) return "unchanged";
      if (member.role === "owner" && await ownerCount(this.#kv, orgId) <= 1) return "last_owner";
      const result = await commitAtomic(() => {
        const op = this.#kv.atomic().check(entry);
        bumpRoster(op, orgId, roster);
        op.set(keys.member(memberId), { ...member, role: options.role });
        putAudit(op, options.audit);
        return op;
      });
      return result.ok ? "changed" : LOST;
    });
  }

  removeMember(orgId: string, memberId: string, audit: AuditEntry): Promise<MemberChange> {
    return this.#retry("remove member", () => removeMemberOnce(this.#kv, { orgId, memberId, audit }));
  }

  addCredential(credential: PasskeyCredential, audit: AuditEntry): Promise<"added" | "no_member" | "taken"> {
    return this.#retry("add passkey", () => this.#credentials.add(credential, audit));
  }

  credential(credentialId: string): Promise<PasskeyCredential | null> {
    return this.#credentials.get(credentialId);
  }

  listCredentials(memberId: string): Promise<PasskeyCredential[]> {
    return this.#credentials.list(memberId);
  }

  removeCredential(memberId: string, credentialId: string, audit: AuditEntry): Promise<CredentialRemoval> {
    return this.#retry("remove passkey", () => this.#credentials.remove(memberId, credentialId, audit));
  }

  recordCredentialUse(
    credentialId: string,
    use: { expectedSignCount: number; signCount: number; atMs: number },
  ): Promise<boolean> {
    return this.#retry("record passkey use", () => this.#credentials.recordUse(credentialId, use));
  }

  async purgeExpiredInvitations(nowMs: number): Promise<number> {
    let purged = 0;
    const expired = this.#kv.list<null>({
      start: keys.invitationExpiries(),
      end: [...keys.invitationExpiries(), nowMs + 1],
    });
    for await (const index of expired) {
      const invitationId = String(index.key.at(-1));
      const entry = await this.#kv.get<InvitationRecord>(keys.invitation(invitationId));
      const result = await commitAtomic(() => {
        const op = this.#kv.atomic().check(entry).delete(index.key);
        if (entry.value) deleteInvitation(op, entry.value);
        return op;
      });
      if (result.ok && entry.value) purged++;
    }
    return purged;
  }

  #retry<T>(what: string, attempt: () => Promise<T | Lost>): Promise<T> {
    return retryConditional(attempt, { what, attempts: MAX_ATTEMPTS });
  }
}
