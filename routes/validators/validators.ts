import type { OpenAPIHono } from "@hono/zod-openapi";
import { type Clock, ServiceError } from "../../actors/kernel/mod.ts";
import type { SignatureGuard, ValidatorDesk } from "../../actors/validators/mod.ts";
import { openApiApp } from "../http/openapi.ts";
import { signatureAccess, signedCallerOf, type SignedEnv } from "../middleware/signature_auth.ts";
import { leaseRoute, MAX_TRACE_BYTES, submitRoute } from "./validators_api.ts";

export interface ValidatorRoutesDeps {
  guard: SignatureGuard;
  desk: ValidatorDesk;
  clock: Clock;
}

/**
 * `GET /v1/validators/agent-and-event` and `POST /v1/validators/prediction` (validator signatures).
 * Each request's nonce use and rate hit (DESIGN §4 steps 7–8) are made by the store in the same
 * atomic step as its claim or submission: one commit per request.
 */
export function validatorRoutes(deps: ValidatorRoutesDeps): OpenAPIHono<SignedEnv> {
  const signature = signatureAccess(deps.guard, { role: "validator", nonce: "with_change" });
  const app = openApiApp<SignedEnv>();
  app.openapi(leaseRoute(signature), async (c) => {
    const signed = signedCallerOf(c);
    const reply = await deps.desk.lease(signed.hotkey, signed.use);
    return c.json(reply, 200);
  });
  return app.openapi(submitRoute(signature), async (c) => {
    const receivedAtMs = deps.clock();
    const submission = c.req.valid("json");
    const traceBytes = new TextEncoder().encode(JSON.stringify(submission.reasoningTrace)).length;
    if (traceBytes > MAX_TRACE_BYTES) {
      throw new ServiceError("payload_too_large", `The reasoning trace is over ${MAX_TRACE_BYTES} bytes`, {
        details: { field: "reasoningTrace", maxBytes: MAX_TRACE_BYTES, bytes: traceBytes },
      });
    }
    const signed = signedCallerOf(c);
    const ack = await deps.desk.submit(signed.hotkey, submission, receivedAtMs, signed.use);
    return c.json(ack, 200);
  });
}
