import type { Hono } from "hono";
import { type Clock, systemClock } from "../../actors/kernel/mod.ts";
import { jsonLogger, type Logger, Metrics } from "../../actors/kernel/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import { LeaseLostError, type PeriodicJob, Scheduler } from "../../actors/runtime/mod.ts";
import { type AppEnv, createApp } from "../../routes/app.ts";
import type { Storage } from "../../storage/storage.ts";
import type { Config } from "./config.ts";
import { openStorage } from "./open_storage.ts";
import { type Catalog, createCatalog } from "./catalog_wiring.ts";
import type { MarketSource } from "../../actors/catalog/mod.ts";
import { apiKeyActorKind, keyUsageCounter, rateLimitPurgeJob } from "../../actors/keys/mod.ts";
import { type AskOrg, orgActorKind, orgAsker } from "../../actors/billing/mod.ts";
import { holdExpiryJob, spendCounterPurgeJob } from "../../actors/billing/mod.ts";
import type { MetagraphSource } from "../../actors/validators/mod.ts";
import { type AssignmentSyncJob, noncePurgeJob, type SignatureGuard } from "../../actors/validators/mod.ts";
import { createValidatorLoop } from "./validator_loop_wiring.ts";
import { createMetagraph, type Metagraph } from "./metagraph_wiring.ts";
import type { PriceSource, PriceView } from "../../actors/prices/mod.ts";
import { createPrices } from "./prices_wiring.ts";
import { type AskMiner, minerActorKind, minerAsker } from "../../actors/agents/mod.ts";
import { createScoring, type ScoringWiring } from "./scoring_wiring.ts";
import {
  createCompletionDesk,
  createGateway,
  type GatewayWiring,
  validatorCapsOf,
} from "./gateway_wiring.ts";
import { createPredictions, type PredictionsWiring } from "./predictions_wiring.ts";
import { createDashboard, type DashboardWiring } from "./dashboard_wiring.ts";

/** A wired service instance: storage, actors, periodic jobs and the HTTP app. */
export interface Service {
  app: Hono<AppEnv>;
  storage: Storage;
  actors: ActorSystem;
  scheduler: Scheduler;
  catalog: Catalog;
  /** The metagraph: this instance's view (lookups by hotkey, status) and its sync job. */
  metagraph: Metagraph;
  metrics: Metrics;
  /** This instance's view of the latest prices (`current()` → prices and the stale flag). */
  prices: PriceView;
  /** The scoring job and the leaderboard view. */
  scoring: ScoringWiring;
  /** Asks an organisation's OrgActor on this instance. */
  askOrg: AskOrg;
  /** Asks a miner's MinerActor on this instance. */
  askMiner: AskMiner;
  /** The checks of signed requests on this instance, validators' and miners' (docs/signatures.md). */
  signatureGuard: SignatureGuard;
  /** Brings assignments in line with miners, agents and the event pool (a periodic job). */
  assignmentSync: AssignmentSyncJob;
  /** The LLM gateway's provider catalog and adapters (docs/gateway.md). */
  gateway: GatewayWiring;
  /** The customer predictions' reader and forecast-history snapshot job. */
  predictions: PredictionsWiring;
  /** The dashboard's members, invitations and sessions (docs/dashboard.md). */
  dashboard: DashboardWiring;
  /** Starts periodic jobs and housekeeping timers. */
  start(): void;
  /** Stops timers and jobs, drains mailboxes, closes storage. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  clock?: Clock;
  log?: Logger;
  /** Use this storage instead of opening the configured one (tests). */
  storage?: Storage;
  /** Unique name of this instance for job leases. */
  instanceId?: string;
  /** Use this market source instead of the configured one. */
  marketSource?: MarketSource;
  /** Use this metagraph source instead of the configured one. */
  metagraphSource?: MetagraphSource;
  /** Use this price source instead of the configured one. */
  priceSource?: PriceSource;
  /** Where the provider catalog's `apiKeyEnv` variables are read (default: the process environment). */
  providerEnv?: Record<string, string>;
}

/**
 * Builds a service instance from validated config. Nothing runs until `start()`. Rejects with a
 * `StartupRefusal` (before opening storage) for a provider catalog it cannot run.
 */
export async function createService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? jsonLogger(config.FGW_LOG_LEVEL);
  const metrics = new Metrics({ clock });
  const gateway = await createGateway(config, {
    upstreams: metrics.upstreams,
    ...(options.providerEnv ? { env: options.providerEnv } : {}),
  });
  const storage = options.storage ?? await openStorage(config);
  const actors = new ActorSystem({
    clock,
    idleMs: config.FGW_ACTOR_IDLE_MS,
    timeoutMs: config.FGW_ACTOR_TIMEOUT_MS,
    maxPending: config.FGW_ACTOR_MAX_PENDING,
    log,
    observer: metrics.actors,
  });
  const catalog = await createCatalog(config, {
    storage,
    actors,
    clock,
    log,
    upstreams: metrics.upstreams,
    onSettlementContradicted: () => metrics.settlementContradicted("ingestion"),
    ...(options.marketSource ? { source: options.marketSource } : {}),
  });
  const metagraph = createMetagraph(config, {
    storage,
    clock,
    log,
    upstreams: metrics.upstreams,
    ...(options.metagraphSource ? { source: options.metagraphSource } : {}),
  });
  const { orgs, billing } = storage;
  // Every actor kind is registered here, once (catalog_wiring.ts registers the EventActor kind).
  const orgKind = actors.register(
    orgActorKind({ orgs, billing, clock, holdTtlMs: config.FGW_HOLD_TTL_MS, members: storage.members }),
  );
  const askOrg = orgAsker(actors, orgKind);
  const keyActor = actors.register(apiKeyActorKind({ store: storage.apiKeys, clock }));
  const countKeyUse = keyUsageCounter(actors, storage.keyUsage);
  const prices = createPrices(config, {
    storage,
    clock,
    log,
    upstreams: metrics.upstreams,
    onRefreshError: () => metrics.storageError("prices_view"),
    ...(options.priceSource ? { source: options.priceSource } : {}),
  });
  const { signatureGuard, validators, heldLeases, assignmentSync, verifyPool } = createValidatorLoop(
    config,
    {
      storage,
      metagraph: metagraph.view,
      catalog: catalog.view,
      pool: catalog.routes.pool,
      clock,
      log,
    },
  );
  const askMiner = minerAsker(
    actors,
    actors.register(minerActorKind({
      agents: storage.agents,
      askOrg,
      clock,
      maxBytes: config.FGW_AGENT_MAX_BYTES,
      cooldownMs: config.FGW_AGENT_COOLDOWN_MS,
      afterNewVersion: (hotkey) => assignmentSync.syncMiner(hotkey),
    })),
  );
  const scoring = createScoring(config, {
    storage,
    clock,
    log,
    metagraph: metagraph.view,
    prices: prices.view,
    onSettlementContradicted: () => metrics.settlementContradicted("scoring"),
  });
  const predictions = createPredictions(config, {
    storage,
    catalog: catalog.view,
    leaderboard: scoring.leaderboard,
    metagraph: metagraph.view,
    pool: catalog.routes.pool,
    clock,
    log,
    onPollError: () => metrics.storageError("predictions_cache"),
  });
  const dashboard = createDashboard(config, { storage, actors, clock });
  const jobs: PeriodicJob[] = [
    catalog.ingestion,
    metagraph.sync,
    assignmentSync,
    rateLimitPurgeJob(storage.rateLimits),
    noncePurgeJob(storage.nonces),
    holdExpiryJob({ billing, askOrg, intervalMs: config.FGW_HOLD_EXPIRY_INTERVAL_MS, log }),
    spendCounterPurgeJob({
      billing,
      holdTtlMs: config.FGW_HOLD_TTL_MS,
      leaseMs: config.FGW_LEASE_MS,
      leaseGraceMs: config.FGW_LEASE_GRACE_MS,
    }),
    prices.job,
    scoring.job,
    predictions.snapshotJob,
    dashboard.purgeJob,
  ];
  const timers: ReturnType<typeof setInterval>[] = [];
  const scheduler = new Scheduler({
    leases: storage.jobLeases,
    clock,
    holder: options.instanceId ?? crypto.randomUUID(),
    jobs,
    onError: (job, error) =>
      log(
        error instanceof LeaseLostError
          ? { level: "warn", msg: "job lease lost: run aborted", job, error: String(error) }
          : { level: "error", msg: "periodic job failed", job, error: String(error) },
      ),
    onRun: (job, outcome, ms) => metrics.jobRan(job, outcome, ms),
  });
  const readiness = async () => ({
    storage: await withTimeout(storage.ping(), 2_000).then(() => true, () => {
      metrics.storageError("readiness");
      return false;
    }),
    catalog: await catalog.ready().catch(() => false),
  });
  const http = {
    ipRpm: config.FGW_IP_RPM,
    trustedProxies: config.FGW_TRUSTED_PROXIES,
    adminToken: config.FGW_ADMIN_TOKEN,
    rememberKeySecrets: config.FGW_REMEMBER_KEY_SECRETS,
    metricsToken: config.FGW_METRICS_TOKEN,
    maxAgentBytes: config.FGW_AGENT_MAX_BYTES,
    maxGatewayBodyBytes: config.FGW_GATEWAY_MAX_BODY_BYTES,
    publicOrigin: config.FGW_PUBLIC_URL,
  };
  const app = createApp({
    http,
    clock,
    log,
    storage,
    actors,
    metrics,
    readiness,
    events: catalog.routes,
    metagraph: { view: metagraph.view, sourceName: metagraph.source.name },
    askOrg,
    keyActor,
    countKeyUse,
    askMiner,
    signatureGuard,
    validators,
    scoring: { leaderboard: scoring.leaderboard, miners: scoring.miners },
    predictions: { reader: predictions.reader, freshRuns: predictions.freshRuns },
    gateway: {
      catalog: gateway.catalog,
      desk: createCompletionDesk(gateway, { askOrg, clock, log, metrics }),
      leases: heldLeases,
      validatorCaps: validatorCapsOf(config),
    },
    dashboard,
  });
  return {
    app,
    storage,
    actors,
    scheduler,
    catalog,
    metagraph,
    metrics,
    prices: prices.view,
    scoring,
    askOrg,
    askMiner,
    signatureGuard,
    assignmentSync,
    gateway,
    predictions,
    dashboard,
    start() {
      const failed = (error: unknown) => {
        metrics.storageError("catalog_view");
        log({ level: "error", msg: "catalog refresh failed", error: String(error) });
      };
      catalog.view.refresh().catch(failed);
      timers.push(setInterval(() => catalog.view.poll().catch(failed), config.FGW_VIEW_REFRESH_MS));
      void metagraph.poll();
      timers.push(setInterval(() => void metagraph.poll(), config.FGW_VIEW_REFRESH_MS));
      void prices.refreshView();
      timers.push(setInterval(() => void prices.refreshView(), prices.viewRefreshMs));
      timers.push(setInterval(() => void predictions.pollChanges(), predictions.pollMs));
      timers.push(setInterval(() => actors.sweep(), Math.max(1_000, config.FGW_ACTOR_IDLE_MS / 2)));
      scheduler.start();
    },
    async close() {
      for (const timer of timers) clearInterval(timer);
      try {
        await scheduler.stop();
        await actors.drain();
      } finally {
        verifyPool.close();
      }
      await storage.close();
    },
  };
}

/** `promise`, or a rejection after `ms` (a storage that hangs is not ready). */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
