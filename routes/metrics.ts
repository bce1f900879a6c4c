import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { type Metrics, ServiceError, sha256Text } from "../actors/kernel/mod.ts";
import type { AppEnv } from "./http/app_env.ts";
import { defineRoute, openApiApp, openapiSelfParsed } from "./http/openapi.ts";
import { refuseQueryParameters } from "./http/validation.ts";
import { bearerMatches } from "./middleware/admin_auth.ts";
import { answerHeader } from "./http/answer.ts";

const metricsRoute = defineRoute({
  method: "get",
  path: "/metrics",
  tags: ["health"],
  summary: "Every metric in the Prometheus text format (docs/operations.md)",
  description:
    "Never IP-throttled. With `FGW_METRICS_TOKEN` set, only `Authorization: Bearer <token>` reads it.",
  access: "probe",
  errors: ["unauthenticated", "invalid_request"],
  responses: {
    200: {
      description: "Prometheus text exposition format 0.0.4.",
      content: { "text/plain": { schema: z.string() } },
    },
  },
});

/**
 * `GET /metrics`: every metric in the Prometheus text format (docs/operations.md). With a token
 * configured, only `Authorization: Bearer <token>` reads it (compared in constant time); anything
 * else answers 401 `unauthenticated`. Mounted before the IP throttle, so scrapes are never throttled.
 */
export function metricsRoutes(metrics: Metrics, token: string | undefined): OpenAPIHono<AppEnv> {
  const expected = token === undefined || token === "" ? undefined : sha256Text(token);
  const app = openApiApp<AppEnv>();
  openapiSelfParsed(app, metricsRoute, async (c) => {
    if (expected !== undefined && !bearerMatches(c.req.header("authorization"), expected)) {
      answerHeader(c, "WWW-Authenticate", 'Bearer realm="metrics"');
      throw new ServiceError("unauthenticated", "Missing or invalid metrics token");
    }
    // Unlike the health probes, it takes the conventions' rule: an unknown query parameter is
    // refused (after the token, as on every authenticated route).
    refuseQueryParameters(c.req.url);
    return c.body(await metrics.render(), 200, { "content-type": metrics.contentType });
  });
  return app;
}
