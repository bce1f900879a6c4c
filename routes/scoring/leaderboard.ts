import type { OpenAPIHono } from "@hono/zod-openapi";
import { ServiceError } from "../../actors/kernel/mod.ts";
import type { Leaderboard, LeaderboardView } from "../../actors/scoring/mod.ts";
import type { AppEnv } from "../http/app_env.ts";
import { openApiApp, openapiSelfParsed } from "../http/openapi.ts";
import { parseOrThrow, singleValuedQuery } from "../http/validation.ts";
import { leaderboardQuerySchema, leaderboardRoute } from "./leaderboard_api.ts";

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * `GET /v1/leaderboard`, served from the instance's leaderboard view: the body of each (board,
 * limit) is rendered once, so it is mounted with `openapiSelfParsed` and answers raw JSON text.
 */
export function leaderboardRoutes(view: LeaderboardView): OpenAPIHono<AppEnv> {
  const bodies = new WeakMap<Leaderboard, Map<number, string>>();
  const app = openApiApp<AppEnv>();
  openapiSelfParsed(app, leaderboardRoute, async (c) => {
    const query = parseOrThrow(
      leaderboardQuerySchema,
      singleValuedQuery(c.req.queries(), c.req.url),
      "query parameters",
    );
    if (query.netuid !== undefined && query.netuid !== view.netuid) {
      throw new ServiceError(
        "not_found",
        `No leaderboard for netuid ${query.netuid}: this service serves ${view.netuid}`,
      );
    }
    const board = await view.current();
    let byLimit = bodies.get(board);
    if (!byLimit) bodies.set(board, byLimit = new Map());
    let body = byLimit.get(query.limit);
    if (body === undefined) {
      body = JSON.stringify({ ...board, neurons: board.neurons.slice(0, query.limit) });
      byLimit.set(query.limit, body);
    }
    return c.body(body, 200, { "Content-Type": JSON_TYPE });
  });
  return app;
}
