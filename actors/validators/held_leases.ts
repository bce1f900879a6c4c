import { ServiceError } from "../kernel/mod.ts";
import type { AssignmentStore } from "../../storage/assignment_store.ts";

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
  readonly #graceMs: number;

  constructor(assignments: Pick<AssignmentStore, "heldLease">, options: { graceMs: number }) {
    this.#assignments = assignments;
    this.#graceMs = options.graceMs;
  }

  /** Answers when `caller` holds the lease `agentPredictionId`; 409 `lease_not_held` otherwise (an unknown id too). */
  async require(agentPredictionId: string, caller: LeaseCaller): Promise<void> {
    const held = await this.#assignments.heldLease(agentPredictionId, {
      validatorHotkey: caller.validatorHotkey,
      graceMs: this.#graceMs,
    });
    if (held?.minerHotkey === caller.minerHotkey) return;
    throw new ServiceError(
      "lease_not_held",
      "The signing validator holds no live lease of this id for this miner",
      {
        details: { agentPredictionId, minerHotkey: caller.minerHotkey },
      },
    );
  }
}
