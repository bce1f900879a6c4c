import { Hono } from "hono";
import { ServiceError } from "../actors/kernel/mod.ts";
import type { AppEnv } from "./http/app_env.ts";

/** Readiness: storage reachable and the catalog loaded (first ingestion or a snapshot). */
export interface Readiness {
  storage: boolean;
  catalog: boolean;
}

/** `GET /healthz` (process up) and `GET /readyz` (503 `not_ready` naming the failing checks until ready). */
export function healthRoutes(readiness: () => Promise<Readiness>): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .get("/healthz", (c) => c.json({ status: "ok" }))
    .get("/readyz", async (c) => {
      const checks = await readiness();
      if (!checks.storage || !checks.catalog) {
        throw new ServiceError("not_ready", "Service is not ready", { details: { checks } });
      }
      return c.json({ status: "ready", checks });
    });
}
