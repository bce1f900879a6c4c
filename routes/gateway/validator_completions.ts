import type { OpenAPIHono } from "@hono/zod-openapi";
import type { CompletionDesk } from "../../actors/gateway/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import type { HeldLeases, MetagraphView, SignatureGuard } from "../../actors/validators/mod.ts";
import { openApiApp } from "../http/openapi.ts";
import { sendJson } from "../http/answer.ts";
import { signatureAccess, signedCallerOf, type SignedEnv } from "../middleware/signature_auth.ts";
import { completionJson } from "./completion_json.ts";
import { CREDITS_REMAINING, validatorCompletionRoute } from "./gateway_api.ts";

/** The spend caps of validator completions (docs/billing.md, "Spend caps of validator completions"). */
export interface ValidatorCaps {
  /** `FGW_VALIDATOR_DAILY_CAP_MICRO`: what one miner's validator completions may cost per UTC day. */
  minerDailyMicro: bigint;
  /** `FGW_VALIDATOR_MINER_DAILY_CAP_MICRO`: what one validator may spend on one miner per UTC day. */
  validatorMinerDailyMicro: bigint;
  /** `FGW_LEASE_LLM_CAP_MICRO`: what the calls of one lease may cost in all. */
  leaseMicro: bigint;
}

export interface ValidatorGatewayDeps {
  /** The owner of every billed call: the hold, the provider call and the charge. */
  desk: CompletionDesk;
  guard: SignatureGuard;
  /** This instance's metagraph view: the named miner must hold a uid in it. */
  metagraph: Pick<MetagraphView, "neuron">;
  /** The lease check: the call's lease must be held by the signer, for the miner. */
  leases: Pick<HeldLeases, "require">;
  /** `FGW_GATEWAY_MAX_BODY_BYTES`. */
  maxBodyBytes: number;
  caps: ValidatorCaps;
}

/**
 * `POST /v1/gateway/validator/completions`, mounted at `/v1/gateway/validator`: the
 * validator signature checks of docs/signatures.md with `x-miner-hotkey` required (registered to an
 * organisation, else 403 `miner_not_registered`), the miner holding a uid in the metagraph (else 403
 * `hotkey_not_in_metagraph`), the lease named by `agentPredictionId` held by the signer for that
 * miner (else 409 `lease_not_held`), then the customer route's billed call, paid by the miner's
 * organisation within the spend caps, its usage record naming the validator, the lease and the
 * claim (`leasedAtMs`).
 */
export function validatorGatewayRoutes(deps: ValidatorGatewayDeps): OpenAPIHono<SignedEnv> {
  const signature = signatureAccess(deps.guard, { role: "validator", minerHotkey: "required" });
  const route = validatorCompletionRoute({ signature, maxBodyBytes: deps.maxBodyBytes });
  return openApiApp<SignedEnv>().openapi(route, async (c) => {
    const { agentPredictionId, ...call } = c.req.valid("json");
    const signed = signedCallerOf(c);
    const miner = signed.miner;
    if (!miner) throw new Error("The validator gateway route's policy requires x-miner-hotkey");
    if (!deps.metagraph.neuron(miner.hotkey)) {
      throw new ServiceError("hotkey_not_in_metagraph", "The miner hotkey holds no uid in the metagraph", {
        details: { minerHotkey: miner.hotkey },
      });
    }
    const lease = await deps.leases.require(agentPredictionId, {
      validatorHotkey: signed.hotkey,
      minerHotkey: miner.hotkey,
    });
    const { caps } = deps;
    const result = await deps.desk.complete(call, {
      orgId: miner.orgId,
      requestId: c.env.requestId,
      minerHotkey: miner.hotkey,
      validatorHotkey: signed.hotkey,
      agentPredictionId,
      leasedAtMs: lease.leasedAtMs,
      cap: {
        minerHotkey: miner.hotkey,
        limitMicro: caps.minerDailyMicro,
        validator: { hotkey: signed.hotkey, limitMicro: caps.validatorMinerDailyMicro },
        lease: { agentPredictionId, limitMicro: caps.leaseMicro },
      },
    });
    return sendJson(c, completionJson(result), 200, {
      [CREDITS_REMAINING]: result.balanceAfterMicro.toString(),
    });
  });
}
