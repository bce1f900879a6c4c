import type { OrgAccount } from "../billing_store.ts";
import type { AuditEntry } from "../audit_store.ts";
import type { MemberRecord } from "../member_store.ts";
import type {
  BindOutcome,
  MinerRegistration,
  OrgRecord,
  OrgStore,
  RegisterMinerOptions,
  RegisterOutcome,
} from "../org_store.ts";
import { orgKeys } from "./_org_keys.ts";
import { identityKeys } from "./_identity_keys.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { LOST, type Lost, retryConditional } from "../retry_conditional.ts";
import {
  bumpRoster,
  deleteSession,
  deleteSessions,
  putAudit,
  readRoster,
  SESSIONS_PER_COMMIT,
  sessionsUnder,
} from "./_kv_identity_writes.ts";

const MAX_ATTEMPTS = 20;

/**
 * Organisations and miner hotkeys in Deno KV. `["miner", hotkey]` (who owns a hotkey) and
 * `["org_miner", orgId, hotkey]` (an org's list) change together, in one atomic commit checked
 * against both the hotkey's and the org record's versionstamps. A commit that unlinks a hotkey or
 * changes its bound member also deletes the dashboard sessions it signed in (up to
 * `SESSIONS_PER_COMMIT` in the commit, the rest right after), and writes its audit entry.
 */
export class KvOrgStore implements OrgStore {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async create(org: Omit<OrgRecord, "defaultMinerHotkey">): Promise<boolean> {
    const record: OrgRecord = { ...org, defaultMinerHotkey: null };
    const account: OrgAccount = { balanceMicro: 0n, heldMicro: 0n, lastUsageAtMs: null, version: 0 };
    const result = await commitAtomic(() =>
      this.#kv.atomic()
        .check({ key: orgKeys.org(org.id), versionstamp: null })
        .check({ key: orgKeys.account(org.id), versionstamp: null })
        .set(orgKeys.org(org.id), record)
        .set(orgKeys.account(org.id), account)
    );
    return result.ok;
  }

  async get(id: string): Promise<OrgRecord | null> {
    return (await this.#kv.get<OrgRecord>(orgKeys.org(id))).value;
  }

  registerMiner(orgId: string, hotkey: string, options: RegisterMinerOptions): Promise<RegisterOutcome> {
    return this.#retry(async () => {
      const { miner, org } = await this.#read(orgId, hotkey);
      const existing = minerOf(miner.value);
      if (existing && existing.orgId !== orgId) return "taken";
      const proven = options.proof === true && existing !== null && !existing.linkedWithProof;
      const registration: MinerRegistration = existing
        ? { ...existing, linkedWithProof: existing.linkedWithProof || options.proof === true }
        : {
          hotkey,
          orgId,
          registeredAtMs: options.atMs,
          linkedWithProof: options.proof === true,
          boundMemberId: null,
        };
      const result = await commitAtomic(() => {
        const op = this.#kv.atomic().check(miner).check(org);
        if (!existing || proven) {
          op.set(orgKeys.miner(hotkey), registration).set(orgKeys.orgMiner(orgId, hotkey), registration);
          if (options.audit) putAudit(op, options.audit);
        }
        if (options.makeDefault) op.set(orgKeys.org(orgId), { ...org.value, defaultMinerHotkey: hotkey });
        return op;
      });
      if (!result.ok) return LOST;
      return existing ? "already" : "registered";
    });
  }

  unregisterMiner(orgId: string, hotkey: string, options: { audit?: AuditEntry } = {}): Promise<boolean> {
    return this.#retry(async () => {
      const { miner, org } = await this.#read(orgId, hotkey);
      if (miner.value?.orgId !== orgId) return false;
      const sessions = await sessionsUnder(this.#kv, identityKeys.hotkeySessions(hotkey));
      const result = await commitAtomic(() => {
        const op = this.#kv.atomic().check(miner).check(org)
          .delete(orgKeys.miner(hotkey))
          .delete(orgKeys.orgMiner(orgId, hotkey));
        if (org.value.defaultMinerHotkey === hotkey) {
          op.set(orgKeys.org(orgId), { ...org.value, defaultMinerHotkey: null });
        }
        for (const session of sessions.slice(0, SESSIONS_PER_COMMIT)) deleteSession(op, session);
        if (options.audit) putAudit(op, options.audit);
        return op;
      });
      if (!result.ok) return LOST;
      await deleteSessions(this.#kv, sessions.slice(SESSIONS_PER_COMMIT));
      return true;
    });
  }

  bindMiner(
    orgId: string,
    hotkey: string,
    options: { memberId: string | null; audit: AuditEntry },
  ): Promise<BindOutcome> {
    const { memberId } = options;
    return this.#retry(async () => {
      const roster = await readRoster(this.#kv, orgId);
      const [miner, member] = await this.#kv.getMany<[MinerRegistration, MemberRecord]>([
        orgKeys.miner(hotkey),
        identityKeys.member(memberId ?? "none"),
      ]);
      const registration = minerOf(miner.value);
      if (registration?.orgId !== orgId) return "not_found";
      if (!registration.linkedWithProof) return "not_linked_with_proof";
      if (memberId !== null && member.value?.orgId !== orgId) return "no_member";
      if (registration.boundMemberId === memberId) return "unchanged";
      const bound = { ...registration, boundMemberId: memberId };
      const sessions = await sessionsUnder(this.#kv, identityKeys.hotkeySessions(hotkey));
      const result = await commitAtomic(() => {
        const op = this.#kv.atomic().check(miner);
        bumpRoster(op, orgId, roster);
        op.set(orgKeys.miner(hotkey), bound).set(orgKeys.orgMiner(orgId, hotkey), bound);
        for (const session of sessions.slice(0, SESSIONS_PER_COMMIT)) deleteSession(op, session);
        putAudit(op, options.audit);
        return op;
      });
      if (!result.ok) return LOST;
      await deleteSessions(this.#kv, sessions.slice(SESSIONS_PER_COMMIT));
      return "bound";
    });
  }

  setDefaultMiner(orgId: string, hotkey: string): Promise<boolean> {
    return this.#retry(async () => {
      const { miner, org } = await this.#read(orgId, hotkey);
      if (miner.value?.orgId !== orgId) return false;
      const result = await commitAtomic(() =>
        this.#kv.atomic().check(miner).check(org)
          .set(orgKeys.org(orgId), { ...org.value, defaultMinerHotkey: hotkey })
      );
      return result.ok ? true : LOST;
    });
  }

  async listMiners(orgId: string): Promise<MinerRegistration[]> {
    const out: MinerRegistration[] = [];
    for await (const entry of this.#kv.list<MinerRegistration>({ prefix: orgKeys.orgMiners(orgId) })) {
      out.push(minerOf(entry.value)!);
    }
    return out;
  }

  async minerRegistration(hotkey: string): Promise<MinerRegistration | null> {
    return minerOf((await this.#kv.get<MinerRegistration>(orgKeys.miner(hotkey))).value);
  }

  async lowBalance(orgId: string): Promise<bigint | null> {
    return (await this.#kv.get<bigint>(orgKeys.lowBalance(orgId))).value;
  }

  /** Orgs are never deleted: one that was read stays, so the write needs no check. */
  async setLowBalance(
    orgId: string,
    thresholdMicro: bigint | null,
    options: { audit?: AuditEntry } = {},
  ): Promise<boolean> {
    if (!(await this.get(orgId))) return false;
    const key = orgKeys.lowBalance(orgId);
    await commitAtomic(() => {
      const op = this.#kv.atomic();
      if (thresholdMicro === null) op.delete(key);
      else op.set(key, thresholdMicro);
      if (options.audit) putAudit(op, options.audit);
      return op;
    });
    return true;
  }

  async #read(orgId: string, hotkey: string) {
    const [miner, org] = await this.#kv.getMany<[MinerRegistration, OrgRecord]>([
      orgKeys.miner(hotkey),
      orgKeys.org(orgId),
    ]);
    if (!org.value) throw new RangeError(`Unknown organisation: ${orgId}`);
    return { miner, org: org as Deno.KvEntry<OrgRecord> };
  }

  /** Re-runs `attempt` while its commit loses a versionstamp check to a concurrent writer. */
  #retry<T>(attempt: () => Promise<T | Lost>): Promise<T> {
    return retryConditional(attempt, { what: "update miner registration", attempts: MAX_ATTEMPTS });
  }
}

/** A stored registration with the fields records written before hotkey links lack (not linked, unbound). */
export function minerOf(stored: MinerRegistration | null): MinerRegistration | null {
  if (!stored) return null;
  return {
    ...stored,
    linkedWithProof: stored.linkedWithProof ?? false,
    boundMemberId: stored.boundMemberId ?? null,
  };
}
