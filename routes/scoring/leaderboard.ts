import type { OpenAPIHono } from "@hono/zod-openapi";
import type { LeaderboardView } from "../../actors/scoring/mod.ts";
import type { AppEnv } from "../http/app_env.ts";
import { sendBody } from "../http/answer.ts";
import { openApiApp, openapiSelfParsed } from "../http/openapi.ts";
import { leaderboardRoute } from "./leaderboard_api.ts";
import { boardCsv } from "./leaderboard_columns.ts";
import { type BoardViews, parseLeaderboardQuery } from "./leaderboard_query.ts";

const JSON_TYPE = "application/json; charset=utf-8";
const CSV_TYPE = "text/csv; charset=utf-8";

/**
 * `GET /v1/leaderboard`, served from the instance's leaderboard view: the body of each (board,
 * sort, order, limit, format) is rendered once (`views`, shared with the `/leaderboard` page), so
 * it is mounted with `openapiSelfParsed` and answers raw text.
 */
export function leaderboardRoutes(view: LeaderboardView, views: BoardViews): OpenAPIHono<AppEnv> {
  const app = openApiApp<AppEnv>();
  openapiSelfParsed(app, leaderboardRoute, async (c) => {
    const query = parseLeaderboardQuery(c, view.netuid);
    const board = await view.current();
    const key = `v1/${query.format}/${query.sort}/${query.order}/${query.limit}`;
    const body = await views.text(board, key, () => {
      const neurons = views.rows(board, query);
      return query.format === "csv"
        ? boardCsv(board.baselines, neurons)
        : JSON.stringify({ ...board, neurons });
    });
    return sendBody(c, body, 200, query.format === "csv" ? CSV_TYPE : JSON_TYPE);
  });
  return app;
}
