import type { OpenAPIHono } from "@hono/zod-openapi";
import type { CompletionDesk } from "../../actors/gateway/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import type { MetagraphView, SignatureGuard } from "../../actors/validators/mod.ts";
import { openApiApp } from "../http/openapi.ts";
import { sendJson } from "../http/answer.ts";
import { signatureAccess, signedCallerOf, type SignedEnv } from "../middleware/signature_auth.ts";
import { completionJson } from "./completion_json.ts";
import { CREDITS_REMAINING, validatorCompletionRoute } from "./gateway_api.ts";

export interface ValidatorGatewayDeps {
  /** The owner of every billed call: the hold, the provider call and the charge. */
  desk: CompletionDesk;
  guard: SignatureGuard;
  /** This instance's metagraph view: the named miner must hold a uid in it. */
  metagraph: Pick<MetagraphView, "neuron">;
  /** `FGW_GATEWAY_MAX_BODY_BYTES`. */
  maxBodyBytes: number;
  /** `FGW_VALIDATOR_DAILY_CAP_MICRO`: what one miner's validator completions may cost per UTC day. */
  dailyCapMicro: bigint;
}

/**
 * `POST /v1/gateway/validator/completions`, mounted at `/v1/gateway/validator`: the
 * validator signature checks of docs/signatures.md with `x-miner-hotkey` required (registered to an
 * organisation, else 403 `miner_not_registered`), the miner holding a uid in the metagraph (else 403
 * `hotkey_not_in_metagraph`), then the customer route's billed call, paid by the miner's
 * organisation within the miner's daily cap, its usage record naming the validator.
 */
export function validatorGatewayRoutes(deps: ValidatorGatewayDeps): OpenAPIHono<SignedEnv> {
  const signature = signatureAccess(deps.guard, { role: "validator", minerHotkey: "required" });
  const route = validatorCompletionRoute({ signature, maxBodyBytes: deps.maxBodyBytes });
  return openApiApp<SignedEnv>().openapi(route, async (c) => {
    const body = c.req.valid("json");
    const signed = signedCallerOf(c);
    const miner = signed.miner;
    if (!miner) throw new Error("The validator gateway route's policy requires x-miner-hotkey");
    if (!deps.metagraph.neuron(miner.hotkey)) {
      throw new ServiceError("hotkey_not_in_metagraph", "The miner hotkey holds no uid in the metagraph", {
        details: { minerHotkey: miner.hotkey },
      });
    }
    const result = await deps.desk.complete(body, {
      orgId: miner.orgId,
      requestId: c.env.requestId,
      minerHotkey: miner.hotkey,
      validatorHotkey: signed.hotkey,
      cap: { minerHotkey: miner.hotkey, limitMicro: deps.dailyCapMicro },
    });
    return sendJson(c, completionJson(result), 200, {
      [CREDITS_REMAINING]: result.balanceAfterMicro.toString(),
    });
  });
}
