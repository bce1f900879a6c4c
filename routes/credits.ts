import { Hono } from "hono";
import type { BalanceReply } from "../actors/org_messages.ts";
import { type ApiKeyAccess, apiKeyAuth, type KeyEnv } from "./api_key_auth.ts";
import { Coalescer } from "./coalesce.ts";

export interface CreditRoutesDeps {
  access: ApiKeyAccess;
  /** Asks the OrgActor of `orgId` for its balance (`{type:"balance"}`). */
  balanceOf(orgId: string): Promise<BalanceReply>;
}

/**
 * `GET /v1/credits/balance` (scope billing:read), mounted at `/v1/credits`. `balanceMicro` is the
 * spendable balance: the settled balance minus holds of calls in flight — the amount the 402 check
 * compares a call's reserve against. It is signed: after an overage it is below zero, the debt a
 * top-up must cover before the next call. Concurrent reads of one org share one ask, each answered
 * by an ask made after the request arrived; the ask starts alongside the key's storage check
 * (`prefetch`), and its answer is sent only if that check admits the request.
 */
export function creditRoutes(deps: CreditRoutesDeps): Hono<KeyEnv<BalanceReply>> {
  const balances = new Coalescer<null, BalanceReply>(async (orgId, waiting) => {
    const balance = await deps.balanceOf(orgId);
    return waiting.map(() => balance);
  });
  const auth = apiKeyAuth({
    scope: "billing:read",
    access: deps.access,
    prefetch: (key) => balances.submit(key.orgId, null),
  });
  return new Hono<KeyEnv<BalanceReply>>()
    .get("/balance", auth, async (c) => {
      const balance = await c.get("prefetched");
      return c.json({ balanceMicro: balance.availableMicro.toString(), lastUsageAt: balance.lastUsageAt });
    });
}
