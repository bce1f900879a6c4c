import type { Sql, TransactionSql } from "postgres";
import type { AuditEntry } from "../audit_store.ts";
import type {
  BindOutcome,
  MinerRegistration,
  OrgRecord,
  OrgStore,
  RegisterMinerOptions,
  RegisterOutcome,
} from "../org_store.ts";
import { insertAudit, lockRoster, type MinerRow, toMiner } from "./_pg_identity_rows.ts";

interface OrgRow {
  id: string;
  name: string;
  created_at_ms: bigint;
  default_miner_hotkey: string | null;
}

/**
 * Organisations and miner hotkeys in PostgreSQL. The hotkey is the primary key of `org_miners`
 * (one org per hotkey); the default is a flag on the miner row (a partial unique index allows one
 * per org), so unregistering a default miner clears the default with the same delete. Changes of
 * one org's default are serialised by a transaction-scoped advisory lock on the org id. Unlinking
 * a hotkey or changing its bound member deletes the dashboard sessions it signed in, and writes
 * the audit entry, in the same transaction.
 */
export class PgOrgStore implements OrgStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async create(org: Omit<OrgRecord, "defaultMinerHotkey">): Promise<boolean> {
    const rows = await this.#sql`
      INSERT INTO orgs (id, name, created_at_ms) VALUES (${org.id}, ${org.name}, ${org.createdAtMs})
      ON CONFLICT (id) DO NOTHING RETURNING id`;
    return rows.length === 1;
  }

  async get(id: string): Promise<OrgRecord | null> {
    const [row] = await this.#sql<OrgRow[]>`
      SELECT o.id, o.name, o.created_at_ms, m.hotkey AS default_miner_hotkey
      FROM orgs o LEFT JOIN org_miners m ON m.org_id = o.id AND m.is_default
      WHERE o.id = ${id}`;
    if (!row) return null;
    return {
      id: row.id,
      name: row.name,
      createdAtMs: Number(row.created_at_ms),
      defaultMinerHotkey: row.default_miner_hotkey,
    };
  }

  registerMiner(orgId: string, hotkey: string, options: RegisterMinerOptions): Promise<RegisterOutcome> {
    const proof = options.proof === true;
    return this.#sql.begin(async (tx) => {
      await lockOrgMiners(tx, orgId);
      const [before] = await tx<{ linked_with_proof: boolean }[]>`
        SELECT linked_with_proof FROM org_miners WHERE hotkey = ${hotkey} AND org_id = ${orgId} FOR UPDATE`;
      // The update on conflict locks the existing row and returns its owner; it sets the proof
      // flag only on this org's row.
      const [row] = await tx<{ org_id: string; inserted: boolean }[]>`
        INSERT INTO org_miners (hotkey, org_id, registered_at_ms, linked_with_proof)
        VALUES (${hotkey}, ${orgId}, ${options.atMs}, ${proof})
        ON CONFLICT (hotkey) DO UPDATE SET linked_with_proof = org_miners.linked_with_proof OR
          (org_miners.org_id = ${orgId} AND ${proof})
        RETURNING org_id, (xmax = 0) AS inserted`;
      if (!row || row.org_id !== orgId) return "taken";
      if (options.makeDefault) await markDefault(tx, orgId, hotkey);
      const changed = row.inserted || (proof && before?.linked_with_proof === false);
      if (options.audit && changed) await insertAudit(tx, options.audit);
      return row.inserted ? "registered" : "already";
    });
  }

  unregisterMiner(orgId: string, hotkey: string, options: { audit?: AuditEntry } = {}): Promise<boolean> {
    return this.#sql.begin(async (tx) => {
      const rows = await tx`
        DELETE FROM org_miners WHERE hotkey = ${hotkey} AND org_id = ${orgId} RETURNING hotkey`;
      if (rows.length === 0) return false;
      await tx`DELETE FROM dashboard_sessions WHERE via_hotkey = ${hotkey}`;
      if (options.audit) await insertAudit(tx, options.audit);
      return true;
    });
  }

  bindMiner(
    orgId: string,
    hotkey: string,
    options: { memberId: string | null; audit: AuditEntry },
  ): Promise<BindOutcome> {
    const { memberId } = options;
    return this.#sql.begin(async (tx): Promise<BindOutcome> => {
      await lockRoster(tx, orgId);
      const [miner] = await tx<MinerRow[]>`
        SELECT * FROM org_miners WHERE hotkey = ${hotkey} AND org_id = ${orgId} FOR UPDATE`;
      if (!miner) return "not_found";
      if (!miner.linked_with_proof) return "not_linked_with_proof";
      if (memberId !== null) {
        const [member] = await tx`SELECT 1 FROM members WHERE id = ${memberId} AND org_id = ${orgId}`;
        if (!member) return "no_member";
      }
      if (miner.bound_member_id === memberId) return "unchanged";
      await tx`UPDATE org_miners SET bound_member_id = ${memberId} WHERE hotkey = ${hotkey}`;
      await tx`DELETE FROM dashboard_sessions WHERE via_hotkey = ${hotkey}`;
      await insertAudit(tx, options.audit);
      return "bound";
    });
  }

  setDefaultMiner(orgId: string, hotkey: string): Promise<boolean> {
    return this.#sql.begin(async (tx) => {
      await lockOrgMiners(tx, orgId);
      return await markDefault(tx, orgId, hotkey);
    });
  }

  async listMiners(orgId: string): Promise<MinerRegistration[]> {
    const rows = await this.#sql<MinerRow[]>`
      SELECT * FROM org_miners WHERE org_id = ${orgId} ORDER BY hotkey`;
    return rows.map(toMiner);
  }

  async minerRegistration(hotkey: string): Promise<MinerRegistration | null> {
    const [row] = await this.#sql<MinerRow[]>`
      SELECT * FROM org_miners WHERE hotkey = ${hotkey}`;
    return row ? toMiner(row) : null;
  }

  async lowBalance(orgId: string): Promise<bigint | null> {
    const [row] = await this.#sql<{ low_balance_micro: bigint | string | null }[]>`
      SELECT low_balance_micro FROM orgs WHERE id = ${orgId}`;
    return row?.low_balance_micro == null ? null : BigInt(row.low_balance_micro);
  }

  setLowBalance(
    orgId: string,
    thresholdMicro: bigint | null,
    options: { audit?: AuditEntry } = {},
  ): Promise<boolean> {
    return this.#sql.begin(async (tx) => {
      const rows = await tx`
        UPDATE orgs SET low_balance_micro = ${thresholdMicro?.toString() ?? null}::bigint
        WHERE id = ${orgId} RETURNING id`;
      if (rows.length !== 1) return false;
      if (options.audit) await insertAudit(tx, options.audit);
      return true;
    });
  }
}

function lockOrgMiners(tx: TransactionSql, orgId: string) {
  return tx`SELECT pg_advisory_xact_lock(hashtext(${"org_miners:" + orgId}))`;
}

/** Moves the org's default flag to `hotkey` if it is the org's; false (nothing changed) if not. */
async function markDefault(tx: TransactionSql, orgId: string, hotkey: string): Promise<boolean> {
  const [mine] = await tx`
    SELECT 1 FROM org_miners WHERE hotkey = ${hotkey} AND org_id = ${orgId} FOR UPDATE`;
  if (!mine) return false;
  await tx`UPDATE org_miners SET is_default = false WHERE org_id = ${orgId} AND is_default AND hotkey <> ${hotkey}`;
  await tx`UPDATE org_miners SET is_default = true WHERE hotkey = ${hotkey} AND NOT is_default`;
  return true;
}
