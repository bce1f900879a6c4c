import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { ServiceError } from "../actors/kernel/mod.ts";
import type { AppEnv } from "./http/app_env.ts";
import { defineRoute, jsonResponse, openApiApp } from "./http/openapi.ts";

/** Readiness: storage reachable and the catalog loaded (first ingestion or a snapshot). */
export interface Readiness {
  storage: boolean;
  catalog: boolean;
}

/** Seconds a load balancer is told to wait before asking `/readyz` again. */
const NOT_READY_RETRY_SECONDS = 5;

const checks = z.object({ storage: z.boolean(), catalog: z.boolean() });

const healthzRoute = defineRoute({
  method: "get",
  path: "/healthz",
  tags: ["health"],
  summary: "Liveness: the process is up",
  access: "probe",
  responses: { 200: jsonResponse(z.object({ status: z.literal("ok") }), "The process is up.") },
});

const readyzRoute = defineRoute({
  method: "get",
  path: "/readyz",
  tags: ["health"],
  summary: "Readiness: storage reachable and the catalog loaded",
  access: "probe",
  errors: ["not_ready"],
  responses: {
    200: jsonResponse(z.object({ status: z.literal("ready"), checks }), "Ready to serve."),
  },
});

/** `GET /healthz` (process up) and `GET /readyz` (503 `not_ready` naming the failing checks until ready). */
export function healthRoutes(readiness: () => Promise<Readiness>): OpenAPIHono<AppEnv> {
  return openApiApp<AppEnv>()
    .openapi(healthzRoute, (c) => c.json({ status: "ok" as const }, 200))
    .openapi(readyzRoute, async (c) => {
      const checks = await readiness();
      if (!checks.storage || !checks.catalog) {
        throw new ServiceError("not_ready", "Service is not ready", {
          details: { checks },
          retryAfterSeconds: NOT_READY_RETRY_SECONDS,
        });
      }
      return c.json({ status: "ready" as const, checks }, 200);
    });
}
