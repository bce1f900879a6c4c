import type { OpenAPIHono } from "@hono/zod-openapi";
import { methodologyOf, type ScoringSettings } from "../../actors/scoring/mod.ts";
import type { AppEnv } from "../http/app_env.ts";
import { openApiApp, openapiSelfParsed } from "../http/openapi.ts";
import { sendBody } from "../http/answer.ts";
import { methodologyRoute } from "./methodology_api.ts";

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * `GET /v1/scoring/methodology`: what the methodology page shows, from the same `methodologyOf`.
 * It never changes while the service runs, so its body is rendered once, on the first request.
 */
export function methodologyRoutes(settings: ScoringSettings): OpenAPIHono<AppEnv> {
  let body: string | null = null;
  const app = openApiApp<AppEnv>();
  openapiSelfParsed(app, methodologyRoute, (c) => {
    body ??= JSON.stringify(methodologyOf(settings));
    return sendBody(c, body, 200, JSON_TYPE);
  });
  return app;
}
