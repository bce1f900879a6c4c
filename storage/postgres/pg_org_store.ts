import type { Sql, TransactionSql } from "postgres";
import type { MinerRegistration, OrgRecord, OrgStore, RegisterOutcome } from "../org_store.ts";

interface OrgRow {
  id: string;
  name: string;
  created_at_ms: bigint;
  default_miner_hotkey: string | null;
}

interface MinerRow {
  hotkey: string;
  org_id: string;
  registered_at_ms: bigint;
}

function toMiner(row: MinerRow): MinerRegistration {
  return { hotkey: row.hotkey, orgId: row.org_id, registeredAtMs: Number(row.registered_at_ms) };
}

/**
 * Organisations and miner hotkeys in PostgreSQL. The hotkey is the primary key of `org_miners`
 * (one org per hotkey); the default is a flag on the miner row (a partial unique index allows one
 * per org), so unregistering a default miner clears the default with the same delete. Changes of
 * one org's default are serialised by a transaction-scoped advisory lock on the org id.
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

  registerMiner(
    orgId: string,
    hotkey: string,
    options: { atMs: number; makeDefault: boolean },
  ): Promise<RegisterOutcome> {
    return this.#sql.begin(async (tx) => {
      await lockOrgMiners(tx, orgId);
      // The no-op update on conflict locks the existing row and returns its owner.
      const [row] = await tx<{ org_id: string; inserted: boolean }[]>`
        INSERT INTO org_miners (hotkey, org_id, registered_at_ms) VALUES (${hotkey}, ${orgId}, ${options.atMs})
        ON CONFLICT (hotkey) DO UPDATE SET org_id = org_miners.org_id
        RETURNING org_id, (xmax = 0) AS inserted`;
      if (!row || row.org_id !== orgId) return "taken";
      if (options.makeDefault) await markDefault(tx, orgId, hotkey);
      return row.inserted ? "registered" : "already";
    });
  }

  async unregisterMiner(orgId: string, hotkey: string): Promise<boolean> {
    const rows = await this.#sql`
      DELETE FROM org_miners WHERE hotkey = ${hotkey} AND org_id = ${orgId} RETURNING hotkey`;
    return rows.length === 1;
  }

  setDefaultMiner(orgId: string, hotkey: string): Promise<boolean> {
    return this.#sql.begin(async (tx) => {
      await lockOrgMiners(tx, orgId);
      return await markDefault(tx, orgId, hotkey);
    });
  }

  async listMiners(orgId: string): Promise<MinerRegistration[]> {
    const rows = await this.#sql<MinerRow[]>`
      SELECT hotkey, org_id, registered_at_ms FROM org_miners WHERE org_id = ${orgId} ORDER BY hotkey`;
    return rows.map(toMiner);
  }

  async minerRegistration(hotkey: string): Promise<MinerRegistration | null> {
    const [row] = await this.#sql<MinerRow[]>`
      SELECT hotkey, org_id, registered_at_ms FROM org_miners WHERE hotkey = ${hotkey}`;
    return row ? toMiner(row) : null;
  }

  async lowBalance(orgId: string): Promise<bigint | null> {
    const [row] = await this.#sql<{ low_balance_micro: bigint | string | null }[]>`
      SELECT low_balance_micro FROM orgs WHERE id = ${orgId}`;
    return row?.low_balance_micro == null ? null : BigInt(row.low_balance_micro);
  }

  async setLowBalance(orgId: string, thresholdMicro: bigint | null): Promise<boolean> {
    const rows = await this.#sql`
      UPDATE orgs SET low_balance_micro = ${thresholdMicro?.toString() ?? null}::bigint
      WHERE id = ${orgId} RETURNING id`;
    return rows.length === 1;
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
