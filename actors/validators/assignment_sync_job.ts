import type { Clock, Logger } from "../kernel/mod.ts";
import type { JobRun, PeriodicJob } from "../runtime/mod.ts";
import { type CatalogSnapshot, type IndexedEvent, poolOf, type PoolRules } from "../catalog/mod.ts";
import type { AgentStore } from "../../storage/agent_store.ts";
import type { AssignmentTarget } from "../../storage/assignment_record.ts";
import type { AssignmentStore } from "../../storage/assignment_store.ts";
import type { MetagraphStore, StoredMetagraph } from "../../storage/metagraph_store.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import type { MetagraphView } from "./metagraph_view.ts";
import { type EligibleMiner, eligibleMiners } from "./eligible_miners.ts";

/** The scheduler's name of the job, and of its storage lease. */
export const ASSIGNMENT_SYNC_JOB = "assignment-sync";

export interface AssignmentSyncOptions {
  assignments: AssignmentStore;
  orgs: Pick<OrgStore, "minerRegistration">;
  agents: Pick<AgentStore, "minerState">;
  /** The metagraph this instance believes in, and every (hotkey, uid) pair ever seen. */
  metagraph: Pick<MetagraphView, "metagraph" | "refresh">;
  metagraphStore: Pick<MetagraphStore, "pairs">;
  netuid: number;
  /** The catalog this instance serves; nothing is done before it has loaded. */
  catalog: { readonly loaded: boolean; current(): CatalogSnapshot; refresh(): Promise<void> };
  pool: PoolRules;
  intervalMs: number;
  /** Every this many runs (and on an instance's first), a full pass instead of the changes only. */
  fullEvery?: number;
  clock: Clock;
  log: Logger;
}

/** What one pass saw, kept to compute the next pass's changes. */
interface Seen {
  targets: Set<string>;
  poolIds: Set<string>;
  miners: Set<string>;
}

/**
 * Keeps the assignment queue in line with its inputs (docs/assignments.md): an assignment for each
 * (latest agent version of an eligible miner, event in the assignment pool). A pass `ensure`s the
 * targets (creating new ones, reviving retired ones, superseding older versions) and `retire`s the
 * unleased assignments of events that left the pool, of miners no longer eligible, and of ended
 * events. Between full passes only what changed since the instance's previous pass is written;
 * every write is idempotent, so passes by two instances never conflict.
 */
export class AssignmentSyncJob implements PeriodicJob {
  readonly name = ASSIGNMENT_SYNC_JOB;
  readonly #options: AssignmentSyncOptions;
  #runs = 0;
  #seen: Seen | null = null;

  constructor(options: AssignmentSyncOptions) {
    this.#options = options;
  }

  intervalMs(): number {
    return this.#options.intervalMs;
  }

  async run(_nowMs: number, { signal }: JobRun): Promise<void> {
    const { catalog, metagraph, clock, log } = this.#options;
    await Promise.all([catalog.refresh(), metagraph.refresh()]);
    const latest = metagraph.metagraph;
    if (!catalog.loaded || latest === null) return;
    const nowMs = clock();
    const full = this.#seen === null || this.#runs % (this.#options.fullEvery ?? 10) === 0;
    this.#runs++;
    const miners = await this.eligibleMiners(latest, signal);
    const pool = poolOf(catalog.current(), { nowMs, rules: this.#options.pool });
    const targets = targetsOf(miners, pool);
    const seen: Seen = {
      targets: new Set(targets.map(targetKey)),
      poolIds: new Set(pool.map((item) => item.event.id)),
      miners: new Set(miners.map((miner) => miner.hotkey)),
    };
    const previous = full ? null : this.#seen;
    const toEnsure = previous
      ? targets.filter((target) => !previous.targets.has(targetKey(target)))
      : targets;
    signal.throwIfAborted();
    const ensured = await this.#options.assignments.ensure(toEnsure);
    const retired = await this.#options.assignments.retire({
      eventIds: previous ? [...previous.poolIds].filter((id) => !seen.poolIds.has(id)) : this.#offPool(seen),
      minerHotkeys: previous
        ? [...previous.miners].filter((hotkey) => !seen.miners.has(hotkey))
        : await this.#ineligibleEver(seen),
      ended: true,
    });
    this.#seen = seen;
    log({
      level: "info",
      msg: "assignments synced",
      full,
      miners: miners.length,
      poolEvents: pool.length,
      targets: targets.length,
      ensured: toEnsure.length,
      ...ensured,
      retired,
    });
  }

  /**
   * Brings one miner's assignments in line at once, outside the periodic pass: called after its
   * new agent version has committed, so the version is leasable on every instance before the
   * upload is answered (docs/assignments.md). `ensure`s the miner's latest version × the pool
   * events, which also retires the unleased assignments of its older versions. It reads this
   * instance's views as they are and does nothing before they have loaded or for a miner that is
   * not eligible. It never rejects: a failure is logged and the periodic pass is the safety net.
   */
  async syncMiner(hotkey: string): Promise<void> {
    const { catalog, metagraph, clock, log } = this.#options;
    const latest = metagraph.metagraph;
    if (!catalog.loaded || latest === null) return;
    try {
      const neurons = latest.neurons.filter((neuron) => neuron.hotkey === hotkey);
      const miners = await this.eligibleMiners({ ...latest, neurons });
      const pool = poolOf(catalog.current(), { nowMs: clock(), rules: this.#options.pool });
      const ensured = await this.#options.assignments.ensure(targetsOf(miners, pool));
      log({
        level: "info",
        msg: "miner's assignments synced",
        minerHotkey: hotkey,
        poolEvents: pool.length,
        ...ensured,
      });
    } catch (error) {
      log({
        level: "warn",
        msg: "cannot sync a miner's assignments now; the periodic pass will",
        minerHotkey: hotkey,
        error: String(error),
      });
    }
  }

  /** The metagraph's neurons registered to an organisation and holding an agent version. */
  eligibleMiners(metagraph: StoredMetagraph, signal?: AbortSignal): Promise<EligibleMiner[]> {
    return eligibleMiners(metagraph, this.#options, signal);
  }

  /** Catalog events that have not ended but are out of the pool (ended ones: `ended: true`). */
  #offPool(seen: Seen): string[] {
    const nowMs = this.#options.clock();
    return this.#options.catalog.current().sorted("endDate")
      .filter((item) => item.endMs > nowMs && !seen.poolIds.has(item.event.id))
      .map((item) => item.event.id);
  }

  /** Every hotkey the metagraph ever held that is not eligible now. */
  async #ineligibleEver(seen: Seen): Promise<string[]> {
    const pairs = await this.#options.metagraphStore.pairs(this.#options.netuid);
    return [...new Set(pairs.map((pair) => pair.hotkey))].filter((hotkey) => !seen.miners.has(hotkey));
  }
}

/** Every (miner's agent version, pool event) pair, round 0. */
export function targetsOf(
  miners: readonly EligibleMiner[],
  pool: readonly IndexedEvent[],
): AssignmentTarget[] {
  return miners.flatMap((miner) =>
    pool.map((item) => ({
      minerHotkey: miner.hotkey,
      minerUid: miner.uid,
      agentVersionId: miner.agentVersionId,
      agentUploadedAtMs: miner.agentUploadedAtMs,
      eventId: item.event.id,
      eventEndsAtMs: item.endMs,
    }))
  );
}

/** What makes a target worth writing again: its identity, and the uid and end it carries. */
function targetKey(target: AssignmentTarget): string {
  return `${target.agentVersionId}\u0000${target.eventId}\u0000${target.minerUid}\u0000${target.eventEndsAtMs}`;
}
