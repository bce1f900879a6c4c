import type { Sql, TransactionSql } from "postgres";
import type {
  AgentMinerState,
  AgentStore,
  AgentVersion,
  AgentVersionWithCode,
  UploadOptions,
  UploadOutcome,
} from "../agent_store.ts";

interface VersionRow {
  version_id: string;
  miner_hotkey: string;
  sha256: string;
  size_bytes: number;
  name: string | null;
  created_at_ms: bigint;
}

function toVersion(row: VersionRow): AgentVersion {
  return {
    versionId: row.version_id,
    minerHotkey: row.miner_hotkey,
    sha256: row.sha256,
    sizeBytes: row.size_bytes,
    name: row.name,
    createdAtMs: Number(row.created_at_ms),
  };
}

/**
 * Agent versions in PostgreSQL. An upload is one transaction under a transaction-scoped advisory
 * lock on the miner's hotkey (the miner may have no row yet), so uploads of one miner from any
 * number of connections run one at a time: the digest lookup, the cooldown check, the insert of
 * the version and the miner's new state commit together or not at all. `UNIQUE (miner_hotkey,
 * sha256)` makes the content addressing a database rule as well.
 */
export class PgAgentStore implements AgentStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  upload(
    minerHotkey: string,
    agent: Omit<AgentVersionWithCode, "minerHotkey" | "createdAtMs">,
    { nowMs, cooldownMs }: UploadOptions,
  ): Promise<UploadOutcome> {
    return this.#sql.begin(async (tx): Promise<UploadOutcome> => {
      await tx`SELECT pg_advisory_xact_lock(hashtext(${"agent_miner:" + minerHotkey}))`;
      const [existing] = await selectBySha(tx, minerHotkey, agent.sha256);
      const state = await minerState(tx, minerHotkey);
      if (existing) {
        const version = toVersion(existing);
        return { outcome: "existing", version, current: state?.currentVersionId === version.versionId };
      }
      if (state && nowMs < state.lastUploadAtMs + cooldownMs) {
        const retryAtMs = state.lastUploadAtMs + cooldownMs;
        return { outcome: "cooldown", lastUploadAtMs: state.lastUploadAtMs, retryAtMs };
      }
      const [row] = await tx<VersionRow[]>`
        INSERT INTO agent_versions (version_id, miner_hotkey, sha256, size_bytes, name, created_at_ms, code)
        VALUES (${agent.versionId}, ${minerHotkey}, ${agent.sha256}, ${agent.sizeBytes}, ${agent.name},
                ${nowMs}, ${agent.code})
        RETURNING version_id, miner_hotkey, sha256, size_bytes, name, created_at_ms`;
      await tx`
        INSERT INTO agent_miners (miner_hotkey, current_version_id, last_upload_at_ms)
        VALUES (${minerHotkey}, ${agent.versionId}, ${nowMs})
        ON CONFLICT (miner_hotkey) DO UPDATE
          SET current_version_id = EXCLUDED.current_version_id, last_upload_at_ms = EXCLUDED.last_upload_at_ms`;
      return { outcome: "created", version: toVersion(row!) };
    });
  }

  async findBySha256(minerHotkey: string, sha256: string): Promise<AgentVersion | null> {
    const [row] = await selectBySha(this.#sql, minerHotkey, sha256);
    return row ? toVersion(row) : null;
  }

  async get(versionId: string): Promise<AgentVersionWithCode | null> {
    const [row] = await this.#sql<(VersionRow & { code: string })[]>`
      SELECT version_id, miner_hotkey, sha256, size_bytes, name, created_at_ms, code
      FROM agent_versions WHERE version_id = ${versionId}`;
    return row ? { ...toVersion(row), code: row.code } : null;
  }

  async listVersions(minerHotkey: string): Promise<AgentVersion[]> {
    const rows = await this.#sql<VersionRow[]>`
      SELECT version_id, miner_hotkey, sha256, size_bytes, name, created_at_ms
      FROM agent_versions WHERE miner_hotkey = ${minerHotkey}
      ORDER BY created_at_ms DESC, version_id DESC`;
    return rows.map(toVersion);
  }

  minerState(minerHotkey: string): Promise<AgentMinerState | null> {
    return minerState(this.#sql, minerHotkey);
  }
}

function selectBySha(sql: Sql | TransactionSql, minerHotkey: string, sha256: string) {
  return sql<VersionRow[]>`
    SELECT version_id, miner_hotkey, sha256, size_bytes, name, created_at_ms
    FROM agent_versions WHERE miner_hotkey = ${minerHotkey} AND sha256 = ${sha256}`;
}

async function minerState(sql: Sql | TransactionSql, minerHotkey: string): Promise<AgentMinerState | null> {
  const [row] = await sql<{ current_version_id: string; last_upload_at_ms: bigint }[]>`
    SELECT current_version_id, last_upload_at_ms FROM agent_miners WHERE miner_hotkey = ${minerHotkey}`;
  return row
    ? { currentVersionId: row.current_version_id, lastUploadAtMs: Number(row.last_upload_at_ms) }
    : null;
}
