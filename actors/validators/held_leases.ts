import { ServiceError } from "../kernel/mod.ts";
import type { AssignmentStore } from "../../storage/assignment_store.ts";
import type { Lease } from "../../storage/assignment_record.ts";

/** The validator and the miner a validator completion names. */
export interface LeaseCaller {
  validatorHotkey: string;
  minerHotkey: string;
}

/**
 * The lease check of a validator completion (docs/gateway.md, "validator completions"): the lease
 * a call names must be held by the signing validator by the rule a submission meets
 * (docs/assignments.md, "Submitting": in progress, not yet submitted, live or within
 * `FGW_LEASE_GRACE_MS` of its expiry, on the storage's clock) and be for the miner the call bills.
 */
export class HeldLeases {
  readonly #assignments: Pick<AssignmentStore, "heldLease">;
  /** How long after its expiry a lease still takes a submission (`FGW_LEASE_GRACE_MS`). */
  readonly graceMs: number;

  constructor(assignments: Pick<AssignmentStore, "heldLease">, options: { graceMs: number }) {
    this.#assignments = assignments;
    this.graceMs = options.graceMs;
  }

  /**
   * The claim `caller` holds of the lease `agentPredictionId` (the usage record of the call names
   * it); 409 `lease_not_held` otherwise (an unknown id too).
   */
  async require(agentPredictionId: string, caller: LeaseCaller): Promise<Lease> {
    const held = await this.#assignments.heldLease(agentPredictionId, {
      validatorHotkey: caller.validatorHotkey,
      graceMs: this.graceMs,
    });
    if (held?.lease && held.minerHotkey === caller.minerHotkey) return held.lease;
    throw new ServiceError(
      "lease_not_held",
      "The signing validator holds no live lease of this id for this miner",
      {
        details: { agentPredictionId, minerHotkey: caller.minerHotkey },
      },
    );
  }
}
