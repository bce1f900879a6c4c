import type { MiddlewareHandler } from "hono";
import type { Metrics } from "../../actors/kernel/mod.ts";
import type { AppEnv } from "../http/app_env.ts";
import { routePattern } from "./http_metrics.ts";
import { chooseRequestId } from "./request_id.ts";

/**
 * The first middleware of every request, in one step because each step costs on the hottest
 * routes (docs/benchmarks.md): sets the request id (`requestId`'s rule) and echoes it, then counts
 * and times the request by method, route pattern and status (`httpMetrics`'s rule).
 */
export function frontDoor(metrics: Metrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const id = chooseRequestId(c.req.raw.headers.get("x-request-id"));
    c.set("requestId", id);
    c.header("X-Request-Id", id);
    await next();
    metrics.observeRequest(c.req.method, routePattern(c), c.res.status, (performance.now() - started) / 1000);
  };
}
