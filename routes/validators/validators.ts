import type { OpenAPIHono } from "@hono/zod-openapi";
import { type Clock, ServiceError } from "../../actors/kernel/mod.ts";
import type { SignatureGuard, ValidatorDesk } from "../../actors/validators/mod.ts";
import { openApiApp, openapiSelfParsed } from "../http/openapi.ts";
import { parseOrThrow, refuseUnstorableText } from "../http/validation.ts";
import { parsedJsonBody } from "../middleware/json_body.ts";
import { signatureAccess, signedCallerOf, type SignedEnv } from "../middleware/signature_auth.ts";
import { leaseRoute, MAX_TRACE_BYTES, SubmissionSchema, submitRoute } from "./validators_api.ts";

/** The submission body as `jsonBody` declares it: unknown fields refused. */
const SubmissionBody = SubmissionSchema.strict();

export interface ValidatorRoutesDeps {
  guard: SignatureGuard;
  desk: ValidatorDesk;
  clock: Clock;
}

/**
 * `GET /v1/validators/agent-and-event` and `POST /v1/validators/prediction` (validator signatures).
 * Each request's nonce use and rate hit (steps 7–8 of docs/signatures.md) are made by the store in the same
 * atomic step as its claim or submission: one commit per request. Both are mounted without
 * validators: the signature middleware checks the headers the route documents, and the submission
 * parses the body the JSON gate already parsed, with the declared schema (same 400s).
 */
export function validatorRoutes(deps: ValidatorRoutesDeps): OpenAPIHono<SignedEnv> {
  const signature = signatureAccess(deps.guard, { role: "validator", nonce: "with_change" });
  const app = openApiApp<SignedEnv>();
  openapiSelfParsed(app, leaseRoute(signature), async (c) => {
    const signed = signedCallerOf(c);
    return c.json(await deps.desk.lease(signed.hotkey, signed.use), 200);
  });
  openapiSelfParsed(app, submitRoute(signature), async (c) => {
    const receivedAtMs = deps.clock();
    const submission = parseOrThrow(SubmissionBody, parsedJsonBody(c), "body");
    // Every string of it is stored (PostgreSQL refuses NUL and lone surrogates: 400, never 500).
    refuseUnstorableText(submission);
    const traceBytes = new TextEncoder().encode(JSON.stringify(submission.reasoningTrace)).length;
    if (traceBytes > MAX_TRACE_BYTES) {
      throw new ServiceError("payload_too_large", `The reasoning trace is over ${MAX_TRACE_BYTES} bytes`, {
        details: { field: "reasoningTrace", maxBytes: MAX_TRACE_BYTES, bytes: traceBytes },
      });
    }
    const signed = signedCallerOf(c);
    return c.json(await deps.desk.submit(signed.hotkey, submission, receivedAtMs, signed.use), 200);
  });
  return app;
}
