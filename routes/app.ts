import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./http/app_env.ts";
import type { Clock } from "../actors/kernel/mod.ts";
import type { Logger } from "../actors/kernel/mod.ts";
import type { ActorKind, ActorSystem } from "../actors/runtime/mod.ts";
import type { Metrics } from "../actors/kernel/mod.ts";
import { ServiceError } from "../actors/kernel/mod.ts";
import type { Storage } from "../storage/storage.ts";
import { errorResponse, onError } from "./middleware/error_handler.ts";
import { healthRoutes, type Readiness } from "./health.ts";
import { installFrontDoor } from "./front_door.ts";
import { eventRoutes, type EventRoutesDeps } from "./catalog/events.ts";
import { CatalogPages } from "./catalog/catalog_pages.ts";
import { EventDetails } from "./catalog/event_detail.ts";
import { eventDetailRoutes } from "./catalog/event_detail_route.ts";
import { adminAuth } from "./middleware/admin_auth.ts";
import { adminKeyRoutes, listOrgKeys } from "./keys/admin_keys.ts";
import { adminOrgRoutes } from "./billing/admin_orgs.ts";
import type { AskOrg } from "../actors/billing/mod.ts";
import { createApiKeyAccess } from "./middleware/api_key_auth.ts";
import { ipThrottle } from "./middleware/ip_throttle.ts";
import { openApiApp } from "./http/openapi.ts";
import { serveApiDocs } from "./api_docs/api_docs.ts";
import type { ApiKeyMessages, CountKeyUse } from "../actors/keys/mod.ts";
import { creditRoutes } from "./billing/credits.ts";
import { usageRoutes } from "./usage/usage.ts";
import { adminLowBalanceRoutes, lowBalanceKeyRoutes } from "./billing/low_balance.ts";
import { metricsRoutes } from "./metrics.ts";
import type { HeldLeases, MetagraphView, SignatureGuard, ValidatorDesk } from "../actors/validators/mod.ts";
import { adminMetagraphRoutes } from "./validators/admin_metagraph.ts";
import { validatorRoutes } from "./validators/validators.ts";
import type { AskMiner } from "../actors/agents/mod.ts";
import { adminMinerRoutes, agentRoutes } from "./agents/agents.ts";
import type { LeaderboardView, MinerView } from "../actors/scoring/mod.ts";
import { leaderboardRoutes } from "./scoring/leaderboard.ts";
import { BoardViews } from "./scoring/leaderboard_query.ts";
import { overviewRoutes } from "./overview/overview.ts";
import { OverviewSource } from "./overview/overview_source.ts";
import { minerRoutes } from "./scoring/miner.ts";
import { scoredEventRoutes } from "./scoring/scored_events.ts";
import { ScoredPages } from "./scoring/scored_pages.ts";
import { scoredPredictionRoutes } from "./scoring/scored_predictions.ts";
import { methodologyRoutes } from "./scoring/methodology.ts";
import type { CompletionDesk, ProviderCatalog } from "../actors/gateway/mod.ts";
import { gatewayRoutes } from "./gateway/gateway.ts";
import { type ValidatorCaps, validatorGatewayRoutes } from "./gateway/validator_completions.ts";
import type { FreshRunRequester, PredictionReader } from "../actors/predictions/mod.ts";
import { predictionRoutes } from "./predictions/predictions.ts";
import { pageRoutes } from "./pages/pages.ts";
import { notFoundPage } from "./pages/kit/error_page.tsx";
import { wantsHtml } from "./pages/kit/page_answer.ts";
import type { AskMembership, SessionDesk } from "../actors/identity/mod.ts";
import { adminMemberRoutes } from "./identity/admin_members.ts";
import { dashboardRoutes } from "./dashboard/dashboard.ts";
import { SignInLimits } from "./dashboard/sign_in_limits.ts";

/** What the routes need from the running service. */
export interface AppDeps {
  http: HttpOptions;
  clock: Clock;
  log: Logger;
  storage: Storage;
  actors: ActorSystem;
  /** This instance's metrics (served at `/metrics`). */
  metrics: Metrics;
  readiness: () => Promise<Readiness>;
  events: EventRoutesDeps;
  /** This instance's metagraph view and the name of its source (`subtensor` or `file`). */
  metagraph: { view: MetagraphView; sourceName: string };
  /** Asks an organisation's OrgActor (balance, holds, ledger, miners). */
  askOrg: AskOrg;
  /** The ApiKeyActor kind, registered with `actors`. */
  keyActor: ActorKind<ApiKeyMessages>;
  /** Counts a key's uses through its KeyUsageActor. */
  countKeyUse: CountKeyUse;
  /** Asks a miner's MinerActor (agent versions). */
  askMiner: AskMiner;
  /** The checks of signed requests, validators' and miners' (docs/signatures.md). */
  signatureGuard: SignatureGuard;
  /** Leases and prediction submissions of the validator loop. */
  validators: ValidatorDesk;
  /** The public scoring reads: the leaderboard view and the miners' reports. */
  scoring: { leaderboard: LeaderboardView; miners: MinerView };
  /**
   * The customer predictions: the reader, and what queues fresh runs (null where none is wired:
   * `requestFresh` then answers 503).
   */
  predictions: { reader: PredictionReader; freshRuns: FreshRunRequester };
  /** The LLM gateway's providers (loaded at start) and the owner of its billed calls. */
  gateway: {
    catalog: ProviderCatalog;
    desk: CompletionDesk;
    /** The lease check of validator completions. */
    leases: HeldLeases;
    /** The spend caps of validator completions. */
    validatorCaps: ValidatorCaps;
  };
  /** The dashboard's members and sessions (docs/dashboard.md). */
  dashboard: { askMembership: AskMembership; sessions: SessionDesk };
}

/** HTTP settings the composition root takes from the configuration. */
export interface HttpOptions {
  /** IP throttle, requests per minute per client address; 0 disables it. */
  ipRpm: number;
  /** Proxies whose `X-Forwarded-For` is trusted. */
  trustedProxies: readonly string[];
  /** Bearer token of the admin API; undefined turns the admin API off. */
  adminToken: string | undefined;
  /** Keep verified API-key secrets in memory (docs/api_keys.md). */
  rememberKeySecrets: boolean;
  /** Bearer token of `GET /metrics`; undefined leaves it open. */
  metricsToken: string | undefined;
  /** Largest agent upload in UTF-8 bytes of code (`FGW_AGENT_MAX_BYTES`). */
  maxAgentBytes: number;
  /** Largest completion request body (`FGW_GATEWAY_MAX_BODY_BYTES`). */
  maxGatewayBodyBytes: number;
  /** The dashboard's origin (`FGW_PUBLIC_URL`); undefined turns the dashboard off. */
  publicOrigin: string | undefined;
}

export type { AppEnv };

/**
 * The HTTP surface, read as a route table. Every route is declared with `defineRoute`
 * (routes/http/openapi.ts) and listed in `GET /openapi.json`.
 */
export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = openApiApp<AppEnv>();
  installFrontDoor(app, deps.metrics);
  app.onError(onError(deps.log, { onServerError: () => deps.metrics.storageError("request") }));
  app.notFound((c) =>
    wantsHtml(c) ? notFoundPage(c) : errorResponse(c, new ServiceError("not_found", "No such route"))
  );
  app.route("/", metricsRoutes(deps.metrics, deps.http.metricsToken));
  if (deps.http.ipRpm > 0) {
    app.use(ipThrottle({
      rpm: deps.http.ipRpm,
      trustedProxies: deps.http.trustedProxies,
      clock: deps.clock,
    }));
  }
  app.use("/admin/v1/*", adminAuth(deps.http.adminToken));
  app.route("/", healthRoutes(deps.readiness));
  const catalogPages = new CatalogPages(deps.events);
  app.route("/v1/events", eventRoutes(deps.events, catalogPages));
  const scoredPages = new ScoredPages({
    scores: deps.storage.scores,
    billing: deps.storage.billing,
    metagraph: deps.metagraph.view,
    cursors: deps.events.cursors,
    clock: deps.clock,
  });
  app.route("/v1/events", scoredEventRoutes(scoredPages));
  const eventDetails = new EventDetails({
    catalog: deps.events.catalog,
    history: deps.storage.forecastHistory,
    scores: deps.storage.scores,
    billing: deps.storage.billing,
    clock: deps.clock,
    cacheMs: deps.events.cacheMs,
  });
  app.route("/v1/events", eventDetailRoutes(eventDetails));
  const leaderboard = { view: deps.scoring.leaderboard, views: new BoardViews() };
  app.route("/v1/leaderboard", leaderboardRoutes(leaderboard.view, leaderboard.views));
  const overview = new OverviewSource({
    catalog: deps.events.catalog,
    leaderboard: leaderboard.view,
    clock: deps.clock,
  });
  app.route("/v1/overview", overviewRoutes(overview));
  app.route("/v1/miners", minerRoutes(deps.scoring.miners));
  app.route("/v1/scoring", methodologyRoutes(deps.scoring.leaderboard.settings));
  const access = createApiKeyAccess(deps.storage, deps.countKeyUse, {
    clock: deps.clock,
    rememberSecrets: deps.http.rememberKeySecrets,
  });
  app.route("/v1/credits", creditRoutes({ access }));
  app.route("/v1/credits", lowBalanceKeyRoutes({ access, askOrg: deps.askOrg }));
  const leaseGraceMs = deps.gateway.leases.graceMs;
  app.route("/v1/usage", usageRoutes({ access, usage: deps.storage.usage, clock: deps.clock, leaseGraceMs }));
  app.route(
    "/v1/predictions",
    predictionRoutes({
      ...deps.predictions,
      keys: access,
      history: deps.storage.forecastHistory,
      clock: deps.clock,
    }),
  );
  app.route(
    "/v1/validators",
    validatorRoutes({ guard: deps.signatureGuard, desk: deps.validators, clock: deps.clock }),
  );
  app.route(
    "/v1/validators",
    scoredPredictionRoutes({
      guard: deps.signatureGuard,
      assignments: deps.storage.assignments,
      scores: deps.storage.scores,
      billing: deps.storage.billing,
      metagraph: deps.metagraph.view,
      cursors: deps.events.cursors,
      clock: deps.clock,
    }),
  );
  app.route("/admin/v1", adminKeyRoutes({ ...deps, keys: deps.storage.apiKeys, orgs: deps.storage.orgs }));
  const orgs = deps.storage.orgs;
  app.route(
    "/v1/agents",
    agentRoutes({
      askMiner: deps.askMiner,
      orgs,
      keys: access,
      guard: deps.signatureGuard,
      maxAgentBytes: deps.http.maxAgentBytes,
    }),
  );
  const { catalog, desk } = deps.gateway;
  const maxBodyBytes = deps.http.maxGatewayBodyBytes;
  app.route("/v1/gateway", gatewayRoutes({ catalog, desk, keys: access, orgs, maxBodyBytes }));
  app.route(
    "/v1/gateway/validator",
    validatorGatewayRoutes({
      desk,
      maxBodyBytes,
      guard: deps.signatureGuard,
      metagraph: deps.metagraph.view,
      leases: deps.gateway.leases,
      caps: deps.gateway.validatorCaps,
    }),
  );
  app.route("/admin/v1/miners", adminMinerRoutes({ askMiner: deps.askMiner, orgs }));
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
  app.route("/admin/v1/orgs", adminLowBalanceRoutes(deps.askOrg));
  app.route("/admin/v1", adminMetagraphRoutes({ ...deps.metagraph, clock: deps.clock }));
  const { publicOrigin } = deps.http;
  app.route(
    "/admin/v1/orgs",
    adminMemberRoutes({
      askMembership: deps.dashboard.askMembership,
      members: deps.storage.members,
      audit: deps.storage.audit,
      orgs: deps.storage.orgs,
      cursors: deps.events.cursors,
      clock: deps.clock,
      publicOrigin,
    }),
  );
  if (publicOrigin !== undefined) {
    app.route(
      "/",
      dashboardRoutes({
        sessions: deps.dashboard.sessions,
        publicOrigin,
        stores: { members: deps.storage.members, sessions: deps.storage.sessions, orgs: deps.storage.orgs },
        askMembership: deps.dashboard.askMembership,
        askOrg: deps.askOrg,
        clock: deps.clock,
        keys: { actors: deps.actors, keyActor: deps.keyActor, keys: deps.storage.apiKeys },
        usage: { usage: deps.storage.usage, billing: deps.storage.billing, cursors: deps.events.cursors },
        audit: deps.storage.audit,
        cursors: deps.events.cursors,
        miners: { usage: deps.storage.usage, reports: deps.scoring.miners, leaseGraceMs },
        signInLimits: new SignInLimits({
          store: deps.storage.rateLimits,
          clock: deps.clock,
          trustedProxies: deps.http.trustedProxies,
        }),
      }),
    );
  }
  app.route(
    "/",
    pageRoutes({
      overview,
      leaderboard,
      miners: deps.scoring.miners,
      events: { catalogPages, eventDetails, scoredPages },
      scoringSettings: deps.scoring.leaderboard.settings,
    }),
  );
  serveApiDocs(app);
  return app;
}
