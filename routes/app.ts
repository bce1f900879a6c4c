import { Hono } from "hono";
import type { Clock } from "../actors/clock.ts";
import type { Logger } from "../actors/log.ts";
import type { ActorSystem } from "../actors/runtime.ts";
import { ServiceError } from "../actors/service_error.ts";
import type { Config } from "../scripts/config.ts";
import type { Storage } from "../storage/storage.ts";
import { errorResponse, onError } from "./error_handler.ts";
import { healthRoutes, type Readiness } from "./health.ts";
import { requestId } from "hono/request-id";
import { eventRoutes, type EventRoutesDeps } from "./events.ts";
import { adminAuth } from "./admin_auth.ts";
import { adminKeyRoutes, listOrgKeys } from "./admin_keys.ts";
import { adminOrgRoutes } from "./admin_orgs.ts";
import type { AskOrg } from "../actors/org_messages.ts";
import { createApiKeyAccess } from "./api_key_auth.ts";
import { ipThrottle } from "./ip_throttle.ts";
import { jsonBodyLimit } from "./json_body.ts";
import { apiKeyActorKind } from "../actors/api_key_actor.ts";
import { creditRoutes } from "./credits.ts";
import { keyUsageCounter } from "../actors/key_usage_actor.ts";

/** What the routes need from the running service. */
export interface AppDeps {
  config: Config;
  clock: Clock;
  log: Logger;
  storage: Storage;
  actors: ActorSystem;
  readiness: () => Promise<Readiness>;
  events: EventRoutesDeps;
  /** Asks an organisation's OrgActor (balance, holds, ledger, miners). */
  askOrg: AskOrg;
}

export type AppEnv = { Variables: { requestId: string } };

/** The HTTP surface, read as a route table. */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requestId({ limitLength: 128 }));
  app.onError(onError(deps.log));
  app.notFound((c) => errorResponse(c, new ServiceError("not_found", "No such route")));
  if (deps.config.FGW_IP_RPM > 0) {
    app.use(ipThrottle({
      rpm: deps.config.FGW_IP_RPM,
      trustedProxies: deps.config.FGW_TRUSTED_PROXIES,
      clock: deps.clock,
    }));
  }
  app.use("/admin/v1/*", adminAuth(deps.config.FGW_ADMIN_TOKEN), jsonBodyLimit());
  app.route("/", healthRoutes(deps.readiness));
  app.route("/v1/events", eventRoutes(deps.events));
  const countKeyUse = keyUsageCounter(deps.actors, deps.storage.billing);
  const access = createApiKeyAccess(deps.storage, countKeyUse, {
    clock: deps.clock,
    rememberSecrets: deps.config.FGW_REMEMBER_KEY_SECRETS,
  });
  app.route("/v1/credits", creditRoutes({ access }));
  const keyActor = apiKeyActorKind({ store: deps.storage.apiKeys, clock: deps.clock });
  app.route(
    "/admin/v1",
    adminKeyRoutes({ ...deps, keyActor, keys: deps.storage.apiKeys, orgs: deps.storage.orgs }),
  );
  app.route(
    "/admin/v1/orgs",
    adminOrgRoutes({
      askOrg: deps.askOrg,
      orgs: deps.storage.orgs,
      billing: deps.storage.billing,
      cursors: deps.events.cursors,
      listKeys: (orgId) => listOrgKeys(deps.storage.apiKeys, orgId),
    }),
  );
  return app;
}
