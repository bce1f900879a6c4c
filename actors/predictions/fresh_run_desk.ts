import type { Clock, Logger } from "../kernel/mod.ts";
import { type CatalogSnapshot, type IndexedEvent, poolOf, type PoolRules } from "../catalog/mod.ts";
import {
  type EligibilitySources,
  type EligibleMiner,
  eligibleMiners,
  type MetagraphView,
  targetsOf,
} from "../validators/mod.ts";
import type { AssignmentTarget } from "../../storage/assignment_record.ts";
import type { AssignmentStore } from "../../storage/assignment_store.ts";
import type { FreshRunReservation, FreshRunStore } from "../../storage/fresh_run_store.ts";
import type { FreshRunOutcome, FreshRunRequester } from "./fresh_runs.ts";

/** How long a list of eligible miners found is reused (see `#eligibleMiners`). */
export const ELIGIBILITY_TTL_MS = 10_000;

/** The window of both fresh-run limits: one hour. */
export const FRESH_RUN_WINDOW_MS = 3_600_000;

export interface FreshRunDeskOptions {
  freshRuns: FreshRunStore;
  assignments: Pick<AssignmentStore, "ensure">;
  /** Where miners' registrations and agents are looked up (as the assignment sync does). */
  eligibility: EligibilitySources;
  /** The metagraph this instance believes in. */
  metagraph: Pick<MetagraphView, "metagraph">;
  /** The catalog this instance serves (the pool is computed from it, as the assignment sync does). */
  catalog: { readonly loaded: boolean; current(): CatalogSnapshot; refresh(): Promise<void> };
  pool: PoolRules;
  /** `FGW_FRESH_RUNS_PER_HOUR`. */
  perOrgPerHour: number;
  /** The window of both limits (default one hour). */
  windowMs?: number;
  clock: Clock;
  log: Logger;
}

/**
 * Queues customers' fresh runs (docs/predictions.md "Fresh runs"): for each requested event in
 * the assignment pool, while some eligible miner has an agent, one reservation of the whole batch
 * in storage decides (at most once per event per hour, at most `FGW_FRESH_RUNS_PER_HOUR` events
 * per organisation per hour, across instances) and the assignments of each queued round are
 * created for every eligible miner's newest agent version; claims serve them before ordinary work.
 */
export class FreshRunDesk implements FreshRunRequester {
  readonly #options: FreshRunDeskOptions;
  #eligible: { metagraph: object; atMs: number; miners: Promise<EligibleMiner[]> } | null = null;

  constructor(options: FreshRunDeskOptions) {
    this.#options = options;
  }

  async request(orgId: string, eventIds: readonly string[]): Promise<Map<string, FreshRunOutcome>> {
    const decided = new Map<string, FreshRunOutcome>();
    const pool = await this.#poolOf(eventIds);
    const inPool = eventIds.filter((id) => pool.has(id));
    for (const id of eventIds) if (!pool.has(id)) decided.set(id, refused("not_in_pool"));
    const miners = inPool.length > 0 ? await this.#eligibleMiners() : [];
    if (miners.length === 0) {
      for (const id of inPool) decided.set(id, refused("no_eligible_agents"));
    } else {
      const reservations = await this.#options.freshRuns.reserve(orgId, inPool, {
        perOrg: this.#options.perOrgPerHour,
        windowMs: this.#options.windowMs ?? FRESH_RUN_WINDOW_MS,
      });
      const targets: AssignmentTarget[] = [];
      for (const id of inPool) {
        const reservation = reservations.get(id)!;
        decided.set(id, outcomeOf(reservation));
        if (reservation.status === "queued") {
          targets.push(...roundTargets(miners, pool.get(id)!, reservation.round));
        }
      }
      if (targets.length > 0) await this.#options.assignments.ensure(targets);
      this.#logQueued(orgId, decided, targets.length);
    }
    return new Map(eventIds.map((id) => [id, decided.get(id)!]));
  }

  /** The requested events that are in the assignment pool now, by id. */
  async #poolOf(eventIds: readonly string[]): Promise<Map<string, IndexedEvent>> {
    const { catalog, pool: rules, clock } = this.#options;
    if (!catalog.loaded) await catalog.refresh();
    const wanted = new Set(eventIds);
    const pool = poolOf(catalog.current(), { nowMs: clock(), rules });
    return new Map(pool.filter((item) => wanted.has(item.event.id)).map((item) => [item.event.id, item]));
  }

  /**
   * The eligible miners: about two storage reads per neuron, so a list found is reused for
   * `ELIGIBILITY_TTL_MS` while the metagraph is the same, and concurrent requests share one
   * look-up. An empty list is not kept (a miner that just became eligible is seen at once). A
   * miner deregistered within the reuse gets the fresh round too; the assignment sync retires
   * its unleased work at its next pass (docs/predictions.md "Fresh runs").
   */
  #eligibleMiners(): Promise<EligibleMiner[]> {
    const metagraph = this.#options.metagraph.metagraph;
    if (!metagraph) return Promise.resolve([]);
    const now = this.#options.clock();
    const kept = this.#eligible;
    if (kept && kept.metagraph === metagraph && now - kept.atMs < ELIGIBILITY_TTL_MS) return kept.miners;
    const miners = eligibleMiners(metagraph, this.#options.eligibility);
    this.#eligible = { metagraph, atMs: now, miners };
    miners.then((found) => {
      if (found.length === 0 && this.#eligible?.miners === miners) this.#eligible = null;
    }, () => {
      if (this.#eligible?.miners === miners) this.#eligible = null;
    });
    return miners;
  }

  #logQueued(orgId: string, decided: Map<string, FreshRunOutcome>, assignments: number): void {
    const count = (status: FreshRunOutcome["status"]) =>
      [...decided.values()].filter((outcome) => outcome.status === status).length;
    this.#options.log({
      level: "info",
      msg: "fresh runs requested",
      orgId,
      queued: count("queued"),
      alreadyQueued: count("already_queued"),
      refused: count("refused"),
      assignments,
    });
  }
}

function refused(reason: NonNullable<FreshRunOutcome["reason"]>): FreshRunOutcome {
  return { status: "refused", reason };
}

function outcomeOf(reservation: FreshRunReservation): FreshRunOutcome {
  if (reservation.status === "org_limit") return refused("org_hourly_limit");
  return { status: reservation.status, round: reservation.round };
}

/** Every eligible miner's newest agent version on `item`, in `round`. */
function roundTargets(
  miners: readonly EligibleMiner[],
  item: IndexedEvent,
  round: number,
): AssignmentTarget[] {
  return targetsOf(miners, [item]).map((target) => ({ ...target, round }));
}
