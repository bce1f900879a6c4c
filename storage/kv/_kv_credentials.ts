import type { AuditEntry } from "../audit_store.ts";
import type { CredentialRemoval, MemberRecord, PasskeyCredential } from "../member_store.ts";
import { LOST, type Lost } from "../retry_conditional.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { identityKeys as keys } from "./_identity_keys.ts";
import { bumpRoster, getAll, idsUnder, putAudit, readRoster } from "./_kv_identity_writes.ts";

/** The value at `identityKeys.memberCredentialsVersion`. */
interface PasskeyVersion {
  version: number;
}

/** The passkeys half of `KvMemberStore`: one attempt per call (the store retries `LOST`). */
export class KvCredentials {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** Adds a credential and its member index entry to the commit. */
  put(op: Deno.AtomicOperation, credential: PasskeyCredential): void {
    op.set(keys.credential(credential.credentialId), credential)
      .set(keys.memberCredential(credential.memberId, credential.credentialId), null);
  }

  async get(credentialId: string): Promise<PasskeyCredential | null> {
    return (await this.#kv.get<PasskeyCredential>(keys.credential(credentialId))).value;
  }

  async list(memberId: string): Promise<PasskeyCredential[]> {
    const ids = await idsUnder(this.#kv, keys.memberCredentials(memberId));
    const entries = await getAll<PasskeyCredential>(this.#kv, ids.map((id) => keys.credential(id)));
    return entries.flatMap((entry) => entry.value ? [entry.value] : [])
      .toSorted((a, b) => a.createdAtMs - b.createdAtMs || a.credentialId.localeCompare(b.credentialId));
  }

  async add(
    credential: PasskeyCredential,
    audit: AuditEntry,
  ): Promise<"added" | "no_member" | "taken" | Lost> {
    const [member, existing] = await this.#kv.getMany<[MemberRecord, PasskeyCredential]>([
      keys.member(credential.memberId),
      keys.credential(credential.credentialId),
    ]);
    if (!member.value) return "no_member";
    if (existing.value) return "taken";
    // The roster too: a removal of the member that read its passkeys before this one loses its commit.
    const roster = await readRoster(this.#kv, member.value.orgId);
    const result = await commitAtomic(() => {
      const op = this.#kv.atomic().check(member).check(existing);
      bumpRoster(op, member.value!.orgId, roster);
      this.put(op, credential);
      putAudit(op, audit);
      return op;
    });
    return result.ok ? "added" : LOST;
  }

  /**
   * Removes a passkey unless it is the member's last. The member's passkey version is read before
   * its passkeys are counted, then checked and bumped: a removal that committed meanwhile makes
   * this commit lose (`LOST`), and the retry counts again. (An added passkey only raises the count.)
   */
  async remove(memberId: string, credentialId: string, audit: AuditEntry): Promise<CredentialRemoval | Lost> {
    const version = await this.#kv.get<PasskeyVersion>(keys.memberCredentialsVersion(memberId));
    const entry = await this.#kv.get<PasskeyCredential>(keys.credential(credentialId));
    if (entry.value?.memberId !== memberId) return "not_found";
    const credential = entry.value;
    if ((await idsUnder(this.#kv, keys.memberCredentials(memberId))).length <= 1) return "last";
    const result = await commitAtomic(() => {
      const op = this.#kv.atomic().check(entry).check(version)
        .set(keys.memberCredentialsVersion(memberId), { version: (version.value?.version ?? 0) + 1 });
      deleteCredential(op, credential);
      putAudit(op, audit);
      return op;
    });
    return result.ok ? "removed" : LOST;
  }

  async recordUse(
    credentialId: string,
    use: { expectedSignCount: number; signCount: number; atMs: number },
  ): Promise<boolean | Lost> {
    const entry = await this.#kv.get<PasskeyCredential>(keys.credential(credentialId));
    const credential = entry.value;
    if (!credential || credential.signCount !== use.expectedSignCount) return false;
    const result = await commitAtomic(() =>
      this.#kv.atomic().check(entry)
        .set(keys.credential(credentialId), {
          ...credential,
          signCount: use.signCount,
          lastUsedAtMs: use.atMs,
        })
    );
    return result.ok ? true : LOST;
  }
}

/** Adds the deletion of a credential and its member index entry to the commit. */
export function deleteCredential(op: Deno.AtomicOperation, credential: PasskeyCredential): void {
  op.delete(keys.credential(credential.credentialId))
    .delete(keys.memberCredential(credential.memberId, credential.credentialId));
}

/** Adds the deletion of a removed member's passkey version to the commit. */
export function deleteCredentialsVersion(op: Deno.AtomicOperation, memberId: string): void {
  op.delete(keys.memberCredentialsVersion(memberId));
}
