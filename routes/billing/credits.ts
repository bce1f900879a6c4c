import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { ApiKeyAccess, KeyEnv } from "../middleware/api_key_auth.ts";
import { defineRoute, jsonResponse, openApiApp } from "../http/openapi.ts";
import { sendJson } from "../http/answer.ts";
import { microString } from "../http/shared_schemas.ts";

export interface CreditRoutesDeps {
  access: ApiKeyAccess;
}

const Balance = z.object({
  balanceMicro: microString("Spendable balance: settled balance minus holds; below zero after an overage."),
  lastUsageAt: z.string().nullable().meta({ description: "When the last call was settled (ISO 8601)." }),
}).meta({ id: "CreditBalance" });

/**
 * `GET /v1/credits/balance` (scope billing:read), mounted at `/v1/credits`. `balanceMicro` is the
 * spendable balance: the settled balance minus holds of calls in flight — the amount the 402 check
 * compares a call's reserve against. It is signed: after an overage it is below zero, the debt a
 * top-up must cover before the next call. The figure is the one read by the storage step that
 * admitted the request (the key's KeyUsageActor counts its use and reads the balance in one step), so
 * it is never older than the request.
 */
export function creditRoutes(deps: CreditRoutesDeps): OpenAPIHono<KeyEnv> {
  const balanceRoute = defineRoute({
    method: "get",
    path: "/balance",
    tags: ["billing"],
    summary: "The organisation's spendable credit balance",
    access: { apiKey: "billing:read", keys: deps.access },
    responses: { 200: jsonResponse(Balance, "The balance read when the request was admitted.") },
  });
  return openApiApp<KeyEnv>().openapi(balanceRoute, (c) => {
    const balance = c.get("orgBalance");
    return sendJson(
      c,
      { balanceMicro: balance.availableMicro.toString(), lastUsageAt: balance.lastUsageAt },
      200,
    );
  });
}
