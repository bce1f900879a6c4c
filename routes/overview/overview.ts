import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/app_env.ts";
import { sendJson } from "../http/answer.ts";
import { openApiApp } from "../http/openapi.ts";
import { overviewRoute } from "./overview_api.ts";
import type { OverviewSource } from "./overview_source.ts";

/** `GET /v1/overview`: the home page's figures, from the same source. */
export function overviewRoutes(source: OverviewSource): OpenAPIHono<AppEnv> {
  const app = openApiApp<AppEnv>();
  return app.openapi(overviewRoute, async (c) => sendJson(c, await source.current(), 200));
}
