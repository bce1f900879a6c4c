import { type Clock, ServiceError } from "../kernel/mod.ts";
import { windowAt } from "../keys/mod.ts";
import type { NonceStore, SignedUse } from "../../storage/nonce_store.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import type { StoredNeuron } from "../../storage/metagraph_store.ts";
import type { SignatureRole } from "./canonical_message.ts";
import { type HeaderSource, parseSignatureHeaders, type SignatureHeaders } from "./signature_headers.ts";
import { checkSignature, checkWindow, type SignatureCheck } from "./signed_request.ts";
import type { MetagraphStatus, MetagraphView } from "./metagraph_view.ts";
import { PendingUse } from "./pending_use.ts";
import { minerNotRegistered, nonceReused, notInMetagraph, permitRequired } from "./_signature_refusals.ts";

/** What a signature route asks of its callers beyond a good signature (docs/signatures.md). */
export interface SignaturePolicy {
  role: SignatureRole;
  /**
   * `required`: the request names a miner in `x-miner-hotkey` (validator gateway route), which must
   * be registered to an organisation (step 9). Otherwise the header is only a line of the message.
   */
  minerHotkey?: "required";
  /**
   * `skip_metagraph`: while the metagraph has never synced, steps 3–5 are skipped and the request
   * goes on (scored-predictions answers an empty list: docs/scoring.md). A stale metagraph still refuses.
   */
  neverSynced?: "skip_metagraph";
  /**
   * `with_change` (validator routes that write: the lease and the submission): steps 7–8 are not
   * made by `complete` but left in `SignedCaller.use`, for the store to make in the same atomic
   * step as the request's change (one commit). Not with `minerHotkey` (step 9 comes after them).
   */
  nonce?: "with_change";
}

export interface SignatureSettings {
  /** Allowed |now − timestamp| (`FGW_SIG_WINDOW_MS`). */
  windowMs: number;
  /** Least stake of a validator, rao (`FGW_VALIDATOR_MIN_STAKE_RAO`). */
  minStakeRao: bigint;
  /** Signed requests per minute per validator hotkey, across instances (`FGW_VALIDATOR_RPM`). */
  validatorRpm: number;
}

export interface SignatureGuardDeps {
  view: MetagraphView;
  /** Nonces (step 7) and, for validators, the per-hotkey rate windows (step 8) of the same storage. */
  nonces: NonceStore;
  orgs: Pick<OrgStore, "minerRegistration">;
  clock: Clock;
  /** Step 6's verification: `VerifyPool.verify` (worker threads), or one on this thread. */
  verify: SignatureCheck;
  settings: SignatureSettings;
}

/** A request past steps 1–5: its headers are well formed, in time, and the signer may call. */
export interface AdmittedSignature {
  headers: SignatureHeaders;
  policy: SignaturePolicy;
  /** The signer's neuron; null only when the metagraph checks were skipped (never synced). */
  neuron: StoredNeuron | null;
  metagraph: MetagraphStatus;
}

/** A request past every step: who signed it, for whom, and the raw body the signature covers. */
export interface SignedCaller {
  role: SignatureRole;
  hotkey: string;
  neuron: StoredNeuron | null;
  /** `never_synced` only on a route that skips the metagraph checks then. */
  metagraph: MetagraphStatus;
  /** The miner the request names and its organisation (`minerHotkey: "required"`, or the miner role). */
  miner: RegisteredMiner | null;
  /** The raw body bytes the signature covers (empty when none). */
  body: Uint8Array;
  /** Steps 7–8 still to make, with the change (`nonce: "with_change"`); null when made. */
  use: PendingUse | null;
}

/** A miner hotkey and the organisation it is registered to. */
export interface RegisteredMiner {
  hotkey: string;
  orgId: string;
}

/** What the signature covers besides the headers. */
export interface SignedParts {
  method: string;
  target: string;
  body: Uint8Array;
}

/** The rate-limit bucket of a validator hotkey's signed requests. */
export function validatorBucket(hotkey: string): string {
  return `validator:${hotkey}`;
}

/** Extra life of a nonce beyond twice the window: room for clock differences between instances. */
export const NONCE_SKEW_MARGIN_MS = 60_000;

/**
 * The nine checks of signed requests (docs/signatures.md, "Order of checks and errors"), in their order:
 * headers well formed → timestamp window → metagraph fresh → hotkey in the metagraph → validator permit and
 * stake → signature → nonce consumed (shared storage) → per-hotkey rate (validators, shared storage) →
 * named miner registered to an organisation. `admit` runs steps 1–5 (no body needed), `complete`
 * steps 6–9 (with `nonce: "with_change"`, 7–8 go with the route's change, `PendingUse`). Fails
 * closed: an error of the metagraph, nonce, rate or registration storage propagates (the request
 * is refused with 500), never skips a step.
 */
export class SignatureGuard {
  readonly #deps: SignatureGuardDeps;

  constructor(deps: SignatureGuardDeps) {
    this.#deps = deps;
  }

  get settings(): SignatureSettings {
    return this.#deps.settings;
  }

  /** Steps 1–5. */
  admit(source: HeaderSource, policy: SignaturePolicy): AdmittedSignature {
    const { clock, settings, view } = this.#deps;
    const headers = parseSignatureHeaders(source, policy.role);
    if (policy.minerHotkey === "required" && headers.minerHotkey === null) {
      throw new ServiceError("invalid_request", "This route needs the x-miner-hotkey header", {
        details: {
          fields: [{ field: "x-miner-hotkey", problem: "Required: the miner the request acts for" }],
        },
      });
    }
    const nowMs = clock();
    checkWindow(headers, { nowMs, windowMs: settings.windowMs });
    const metagraph = view.status(nowMs);
    if (metagraph === "never_synced" && policy.neverSynced === "skip_metagraph") {
      return { headers, policy, neuron: null, metagraph };
    }
    view.requireFresh(nowMs);
    const neuron = this.#neuron(headers.hotkey, policy.role);
    if (policy.role === "validator") this.#requirePermit(neuron);
    return { headers, policy, neuron, metagraph };
  }

  /** Steps 6–9 for a request `admit` let through (with `nonce: "with_change"`, step 6 alone). */
  async complete(admitted: AdmittedSignature, parts: SignedParts): Promise<SignedCaller> {
    const { headers, policy } = admitted;
    await checkSignature(headers, parts, this.#deps);
    const use = await this.#nonceSteps(admitted);
    const minerHotkey = policy.role === "miner"
      ? headers.hotkey
      : policy.minerHotkey === "required"
      ? headers.minerHotkey
      : null;
    const miner = minerHotkey === null ? null : await this.#registered(minerHotkey, policy.role);
    return {
      role: policy.role,
      hotkey: headers.hotkey,
      neuron: admitted.neuron,
      metagraph: admitted.metagraph,
      miner,
      body: parts.body,
      use,
    };
  }

  /**
   * Steps 7 and 8 of a validator request in one storage step (one statement on PostgreSQL), its
   * change not riding on it: a replay answers nonce_reused whatever the count (it adds one to its
   * hotkey's count, as a refused request over the rate does); a fresh nonce over the rate answers
   * rate_limited, its nonce used up.
   */
  async useAlone(pending: PendingUse): Promise<void> {
    const { hotkey, nonce, ttlMs, hit } = pending.take();
    const made = await this.#deps.nonces.consumeCounting(hotkey, nonce, { ttlMs }, hit);
    const refusal = pending.refusal(made);
    if (refusal) throw refusal;
  }

  /**
   * Steps 3–4 alone: the metagraph is fresh, else 503 `metagraph_unavailable`, and holds `hotkey`,
   * else 403 `hotkey_not_in_metagraph`.
   */
  checkSigner(hotkey: string): Promise<void> {
    try {
      this.#deps.view.requireFresh(this.#deps.clock());
      this.#neuron(hotkey, "validator");
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Step 7: uses `nonce` up for `hotkey`, atomically across instances, for twice the window plus
   * `NONCE_SKEW_MARGIN_MS`; a nonce in use → 401 `nonce_reused`.
   */
  async consumeNonce(hotkey: string, nonce: string): Promise<void> {
    if (await this.#deps.nonces.consume(hotkey, nonce, this.#nonceLife())) return;
    throw nonceReused();
  }

  /** Step 9: the organisation `minerHotkey` is registered to, else 403 `miner_not_registered`. */
  async #registered(minerHotkey: string, role: SignatureRole): Promise<RegisteredMiner> {
    const registration = await this.#deps.orgs.minerRegistration(minerHotkey);
    if (registration) return { hotkey: minerHotkey, orgId: registration.orgId };
    throw minerNotRegistered(minerHotkey, { role });
  }

  #neuron(hotkey: string, role: SignatureRole): StoredNeuron {
    const neuron = this.#deps.view.neuron(hotkey);
    if (neuron) return neuron;
    throw notInMetagraph(hotkey, { role, netuid: this.#deps.view.netuid });
  }

  #requirePermit(neuron: StoredNeuron): void {
    const { minStakeRao } = this.#deps.settings;
    if (neuron.validatorPermit && neuron.stakeRao >= minStakeRao) return;
    throw permitRequired(neuron, minStakeRao);
  }

  #nonceLife(): { ttlMs: number } {
    return { ttlMs: 2 * this.#deps.settings.windowMs + NONCE_SKEW_MARGIN_MS };
  }

  /** Steps 7–8 now, or (`nonce: "with_change"`) the pending use they become. */
  async #nonceSteps({ headers, policy }: AdmittedSignature): Promise<PendingUse | null> {
    if (policy.role !== "validator") {
      await this.consumeNonce(headers.hotkey, headers.nonce);
      return null;
    }
    const use = this.#pendingUse(headers.hotkey, headers.nonce);
    if (policy.nonce === "with_change" && policy.minerHotkey !== "required") return use;
    await this.useAlone(use);
    return null;
  }

  /** Steps 7–8 of a validator's request, to make: the nonce for its life, a hit on its hotkey's window. */
  #pendingUse(hotkey: string, nonce: string): PendingUse {
    const { clock, settings } = this.#deps;
    const window = windowAt(clock());
    const use: SignedUse = {
      hotkey,
      nonce,
      ttlMs: this.#nonceLife().ttlMs,
      hit: {
        bucket: validatorBucket(hotkey),
        windowStartMs: window.startMs,
        windowMs: window.endMs - window.startMs,
      },
      maxCount: settings.validatorRpm,
    };
    return new PendingUse(use, { window, now: clock });
  }
}
