import type { Context } from "hono";
import { matchedRoutes } from "hono/route";
import { METHOD_NAME_ALL } from "hono/router";
import { UNMATCHED_ROUTE } from "../../actors/kernel/mod.ts";

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
