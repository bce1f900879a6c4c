import type { Sql } from "postgres";
import type { Fence } from "../job_lease_store.ts";
import type {
  MetagraphStore,
  MetagraphWrite,
  NeuronPair,
  StoredMetagraph,
  StoredNeuron,
} from "../metagraph_store.ts";
import { pgArray } from "./_pg_array.ts";

/** A row of `latest`: the sync's columns, and a neuron's (all null when the subnet has none). */
interface LatestRow {
  block: bigint;
  synced_at_ms: bigint;
  uid: number | null;
  hotkey: string;
  coldkey: string;
  active: boolean;
  validator_permit: boolean;
  stake_rao: string;
  emission_rao: string;
  incentive: number;
  consensus: number;
  trust: number;
  validator_trust: number;
  dividends: number;
  last_update: bigint;
  first_seen_at_ms: bigint;
}

/** The metagraph in PostgreSQL (migration `008_metagraph.sql`). */
export class PgMetagraphStore implements MetagraphStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * One transaction that first reads the lease row FOR SHARE: a takeover (which updates that row)
   * waits until the sync commits, and a takeover committed first leaves no row (nothing written).
   */
  async putFenced(
    metagraph: MetagraphWrite,
    options: { syncedAtMs: number; fence: Fence },
  ): Promise<boolean> {
    const { netuid, block, neurons } = metagraph;
    const { syncedAtMs, fence } = options;
    return await this.#sql.begin(async (tx) => {
      const lease = await tx`SELECT 1 FROM job_leases
        WHERE job = ${fence.job} AND token = ${fence.token} FOR SHARE`;
      if (lease.length === 0) return false;
      await tx`INSERT INTO metagraph_syncs (netuid, block, synced_at_ms)
        VALUES (${netuid}, ${block}, ${syncedAtMs})
        ON CONFLICT (netuid) DO UPDATE SET block = EXCLUDED.block, synced_at_ms = EXCLUDED.synced_at_ms`;
      await tx`DELETE FROM metagraph_neurons WHERE netuid = ${netuid}`;
      // Every column travels as an array literal of text (_pg_array.ts).
      const column = (pick: (n: MetagraphWrite["neurons"][number]) => unknown) =>
        pgArray(neurons.map((n) => String(pick(n))));
      await tx`INSERT INTO metagraph_neurons (netuid, uid, hotkey, coldkey, active, validator_permit,
          stake_rao, emission_rao, incentive, consensus, trust, validator_trust, dividends, last_update)
        SELECT ${netuid}, * FROM unnest(
          ${column((n) => n.uid)}::INTEGER[], ${column((n) => n.hotkey)}::TEXT[],
          ${column((n) => n.coldkey)}::TEXT[], ${column((n) => n.active)}::BOOLEAN[],
          ${column((n) => n.validatorPermit)}::BOOLEAN[], ${column((n) => n.stakeRao)}::NUMERIC[],
          ${column((n) => n.emissionRao)}::NUMERIC[], ${column((n) => n.incentive)}::FLOAT8[],
          ${column((n) => n.consensus)}::FLOAT8[], ${column((n) => n.trust)}::FLOAT8[],
          ${column((n) => n.validatorTrust)}::FLOAT8[], ${column((n) => n.dividends)}::FLOAT8[],
          ${column((n) => n.lastUpdate)}::BIGINT[])`;
      await tx`INSERT INTO metagraph_pairs (netuid, uid, hotkey, first_seen_at_ms)
        SELECT ${netuid}, uid, hotkey, ${syncedAtMs} FROM metagraph_neurons WHERE netuid = ${netuid}
        ON CONFLICT (netuid, uid, hotkey) DO NOTHING`;
      return true;
    });
  }

  /** One statement, so the sync row and its neurons come from one snapshot of the database. */
  async latest(netuid: number): Promise<StoredMetagraph | null> {
    const rows = await this.#sql<LatestRow[]>`
      SELECT s.block, s.synced_at_ms, n.uid, n.hotkey, n.coldkey, n.active, n.validator_permit,
        n.stake_rao::TEXT AS stake_rao, n.emission_rao::TEXT AS emission_rao, n.incentive, n.consensus,
        n.trust, n.validator_trust, n.dividends, n.last_update, p.first_seen_at_ms
      FROM metagraph_syncs s
      LEFT JOIN metagraph_neurons n ON n.netuid = s.netuid
      LEFT JOIN metagraph_pairs p ON p.netuid = n.netuid AND p.uid = n.uid AND p.hotkey = n.hotkey
      WHERE s.netuid = ${netuid}
      ORDER BY n.uid`;
    const [first] = rows;
    if (!first) return null;
    return {
      netuid,
      block: Number(first.block),
      syncedAtMs: Number(first.synced_at_ms),
      neurons: rows.filter((row) => row.uid !== null).map(neuronOf),
    };
  }

  async lastSyncedAt(netuid: number): Promise<number | null> {
    const [row] = await this.#sql<{ synced_at_ms: bigint }[]>`
      SELECT synced_at_ms FROM metagraph_syncs WHERE netuid = ${netuid}`;
    return row ? Number(row.synced_at_ms) : null;
  }

  async pairs(netuid: number, options: { hotkey?: string } = {}): Promise<NeuronPair[]> {
    const hotkey = options.hotkey ?? null;
    const rows = await this.#sql<{ uid: number; hotkey: string; first_seen_at_ms: bigint }[]>`
      SELECT uid, hotkey, first_seen_at_ms FROM metagraph_pairs
      WHERE netuid = ${netuid} AND (${hotkey}::TEXT IS NULL OR hotkey = ${hotkey})
      ORDER BY uid, first_seen_at_ms, hotkey`;
    return rows.map((row) => ({
      uid: row.uid,
      hotkey: row.hotkey,
      firstSeenAtMs: Number(row.first_seen_at_ms),
    }));
  }
}

function neuronOf(row: LatestRow): StoredNeuron {
  return {
    uid: row.uid!,
    hotkey: row.hotkey,
    coldkey: row.coldkey,
    active: row.active,
    validatorPermit: row.validator_permit,
    stakeRao: BigInt(row.stake_rao),
    emissionRao: BigInt(row.emission_rao),
    incentive: row.incentive,
    consensus: row.consensus,
    trust: row.trust,
    validatorTrust: row.validator_trust,
    dividends: row.dividends,
    lastUpdate: Number(row.last_update),
    firstSeenAtMs: Number(row.first_seen_at_ms),
  };
}
