import type { Clock, Logger } from "../../actors/kernel/mod.ts";
import type { CatalogView, PoolRules } from "../../actors/catalog/mod.ts";
import {
  AssignmentSyncJob,
  HeldLeases,
  lazySr25519Verify,
  type MetagraphView,
  SignatureGuard,
  ValidatorDesk,
  VerifyPool,
} from "../../actors/validators/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import type { Config } from "./config.ts";

/** The validator loop of one instance: signature checks, the lease/submit desk and the assignment sync. */
export interface ValidatorLoopWiring {
  signatureGuard: SignatureGuard;
  validators: ValidatorDesk;
  /** The lease check of validator completions. */
  heldLeases: HeldLeases;
  assignmentSync: AssignmentSyncJob;
  /** Verification threads of the signature guard (`FGW_VERIFY_WORKERS`); closed with the service. */
  verifyPool: VerifyPool;
}

export interface ValidatorLoopDeps {
  storage: Storage;
  metagraph: MetagraphView;
  catalog: CatalogView;
  /** The assignment pool's rules. */
  pool: PoolRules;
  clock: Clock;
  log: Logger;
}

/**
 * Wires the validator loop from config (`FGW_SIG_WINDOW_MS`, `FGW_VALIDATOR_*`, `FGW_LEASE_*`,
 * `FGW_NETUID`, `FGW_ASSIGNMENT_SYNC_MS`, `FGW_VERIFY_WORKERS`).
 */
export function createValidatorLoop(
  config: Config,
  deps: ValidatorLoopDeps,
): ValidatorLoopWiring {
  const { storage, clock, log } = deps;
  const verify = lazySr25519Verify({ log });
  const verifyPool = new VerifyPool({ size: config.FGW_VERIFY_WORKERS, inline: verify, log });
  const signatureGuard = new SignatureGuard({
    view: deps.metagraph,
    nonces: storage.nonces,
    orgs: storage.orgs,
    clock,
    verify: verifyPool.verify,
    settings: {
      windowMs: config.FGW_SIG_WINDOW_MS,
      minStakeRao: config.FGW_VALIDATOR_MIN_STAKE_RAO,
      validatorRpm: config.FGW_VALIDATOR_RPM,
    },
  });
  const validators = new ValidatorDesk({
    assignments: storage.assignments,
    agents: storage.agents,
    events: storage.events,
    clock,
    settings: {
      leaseMs: config.FGW_LEASE_MS,
      graceMs: config.FGW_LEASE_GRACE_MS,
      maxLeases: config.FGW_VALIDATOR_MAX_LEASES,
    },
  });
  const assignmentSync = new AssignmentSyncJob({
    assignments: storage.assignments,
    orgs: storage.orgs,
    agents: storage.agents,
    metagraph: deps.metagraph,
    metagraphStore: storage.metagraph,
    netuid: config.FGW_NETUID,
    catalog: deps.catalog,
    pool: deps.pool,
    intervalMs: config.FGW_ASSIGNMENT_SYNC_MS,
    clock,
    log,
  });
  const heldLeases = new HeldLeases(storage.assignments, { graceMs: config.FGW_LEASE_GRACE_MS });
  return { signatureGuard, validators, heldLeases, assignmentSync, verifyPool };
}
