import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { METHOD_NAME_ALL } from "hono/router";
import { type Metrics, UNMATCHED_ROUTE } from "../../actors/kernel/mod.ts";

/**
 * Counts and times every request by method, route pattern (`/admin/v1/orgs/:orgId`, never the
 * URL) and status. Mounted first, so throttled, refused and failed requests are counted too.
 */
export function httpMetrics(metrics: Metrics): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    metrics.observeRequest(c.req.method, routePattern(c), c.res.status, (performance.now() - started) / 1000);
  };
}

/**
 * The pattern of the last route (not middleware) that matched the request; `unmatched` when only
 * middleware matched, so random URLs all share one label value and cannot create series.
 */
export function routePattern(c: Context): string {
  const routes = matchedRoutes(c);
  for (let index = routes.length - 1; index >= 0; index--) {
    const route = routes[index]!;
    if (route.method !== METHOD_NAME_ALL) return route.path;
  }
  return UNMATCHED_ROUTE;
}
