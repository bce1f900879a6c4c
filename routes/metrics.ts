import { Hono } from "hono";
import { type Metrics, ServiceError, sha256Text } from "../actors/kernel/mod.ts";
import type { AppEnv } from "./http/app_env.ts";
import { bearerMatches } from "./middleware/admin_auth.ts";

/**
 * `GET /metrics`: every metric in the Prometheus text format (docs/operations.md). With a token
 * configured, only `Authorization: Bearer <token>` reads it (compared in constant time); anything
 * else answers 401 `unauthenticated`. Mounted before the IP throttle, so scrapes are never throttled.
 */
export function metricsRoutes(metrics: Metrics, token: string | undefined): Hono<AppEnv> {
  const expected = token === undefined || token === "" ? undefined : sha256Text(token);
  return new Hono<AppEnv>().get("/metrics", async (c) => {
    if (expected !== undefined && !bearerMatches(c.req.header("authorization"), expected)) {
      c.header("WWW-Authenticate", 'Bearer realm="metrics"');
      throw new ServiceError("unauthenticated", "Missing or invalid metrics token");
    }
    return c.body(await metrics.render(), 200, { "content-type": metrics.contentType });
  });
}
