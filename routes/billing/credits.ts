import { Hono } from "hono";
import { type ApiKeyAccess, apiKeyAuth, type KeyEnv } from "../middleware/api_key_auth.ts";

export interface CreditRoutesDeps {
  access: ApiKeyAccess;
}

/**
 * `GET /v1/credits/balance` (scope billing:read), mounted at `/v1/credits`. `balanceMicro` is the
 * spendable balance: the settled balance minus holds of calls in flight — the amount the 402 check
 * compares a call's reserve against. It is signed: after an overage it is below zero, the debt a
 * top-up must cover before the next call. The figure is the one read by the storage step that
 * admitted the request (the key's KeyUsageActor counts its use and reads the balance in one step), so
 * it is never older than the request.
 */
export function creditRoutes(deps: CreditRoutesDeps): Hono<KeyEnv> {
  return new Hono<KeyEnv>()
    .get("/balance", apiKeyAuth({ scope: "billing:read", access: deps.access }), (c) => {
      const balance = c.get("orgBalance");
      return c.json({ balanceMicro: balance.availableMicro.toString(), lastUsageAt: balance.lastUsageAt });
    });
}
