import { fileURLToPath } from "node:url";
import { z } from "zod";
import { WINDOW_DAYS } from "../../actors/scoring/mod.ts";
import { publicUrlSetting } from "./public_url.ts";

const DEFAULT_SNAPSHOT = fileURLToPath(
  new URL("../../actors/catalog/sources/polymarket_snapshot.json", import.meta.url),
);
/** Timers take at most a signed 32-bit number of milliseconds. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const intMs = (fallback: number) => z.coerce.number().int().positive().max(MAX_TIMER_MS).default(fallback);
/** An amount of micro-credits: 1..18 decimal digits, read as a bigint. */
const microCredits = (fallback: string) =>
  z.string().regex(/^[0-9]{1,18}$/, "must be decimal digits (micro-credits)").default(fallback)
    .transform((digits) => BigInt(digits));
const flag = (fallback: boolean) =>
  z.enum(["1", "0", "true", "false"]).default(fallback ? "1" : "0").transform((v) =>
    v === "1" || v === "true"
  );
const usd = (fallback: number) => z.coerce.number().nonnegative().default(fallback);
const list = (fallback: string) =>
  z.string().default(fallback).transform((value) =>
    value.split(",").map((item) => item.trim()).filter((item) => item.length > 0)
  );
/** Lets a cross-field check run beside bad values elsewhere, once its own `fields` are valid. */
const whenValid = (...fields: string[]) => (payload: z.core.ParsePayload): boolean =>
  !payload.issues.some((issue) => fields.includes(String(issue.path?.[0])));

/**
 * Signature verification threads by default: one per CPU this process may use, at most 4; none
 * on one CPU (a worker there only adds a thread hop).
 */
function defaultVerifyWorkers(): number {
  const cpus = navigator.hardwareConcurrency ?? 1;
  return cpus < 2 ? 0 : Math.min(4, cpus);
}

/** Every setting, from environment variables (docs/configuration.md lists them). */
export const configSchema = z.object({
  FGW_HOST: z.string().min(1).default("127.0.0.1"),
  FGW_PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  FGW_STORAGE: z.enum(["kv", "postgres"]).default("kv"),
  FGW_DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z.string().url().optional(),
  FGW_PG_POOL: z.coerce.number().int().min(1).max(100).default(10),
  FGW_MARKET_SOURCE: z.enum(["gamma", "snapshot"]).default("gamma"),
  FGW_GAMMA_URL: z.string().url().default("https://gamma-api.polymarket.com"),
  FGW_SNAPSHOT_FILE: z.string().min(1).default(DEFAULT_SNAPSHOT),
  FGW_SNAPSHOT_FALLBACK: flag(true),
  FGW_INGEST_INTERVAL_MS: intMs(60_000),
  FGW_INGEST_MAX_BACKOFF_MS: intMs(15 * 60_000),
  FGW_VIEW_REFRESH_MS: intMs(2_000),
  FGW_VIEW_OVERLAP_MS: intMs(30_000),
  FGW_VIEW_FULL_RELOAD_MS: intMs(5 * 60_000),
  FGW_VIEW_PUBLISH_MS: intMs(5_000),
  FGW_EVENTS_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  FGW_ADMIT_MIN_LIQUIDITY_USD: usd(1_000),
  FGW_ADMIT_MIN_VOLUME_USD: usd(1_000),
  FGW_LAST_SEEN_RESOLUTION_MS: intMs(15 * 60_000),
  FGW_POOL_MIN_PRICE: z.coerce.number().min(0).max(1).default(0.05),
  FGW_POOL_MAX_PRICE: z.coerce.number().min(0).max(1).default(0.95),
  FGW_POOL_DENY_SUBSTRINGS: list("up or down,updown,what price will"),
  FGW_CURSOR_TTL_MS: intMs(10 * 60_000),
  FGW_ACTOR_IDLE_MS: intMs(60_000),
  /** Longest a request waits for an actor's reply before 503 `unavailable` (docs/runtime.md). */
  FGW_ACTOR_TIMEOUT_MS: intMs(30_000),
  /** Messages one actor's mailbox holds (waiting or running) before new ones get 503 `unavailable`. */
  FGW_ACTOR_MAX_PENDING: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  /** How long a reserve holds credits before the hold expires unsettled. */
  FGW_HOLD_TTL_MS: intMs(10 * 60_000),
  /** How often expired holds are released. */
  FGW_HOLD_EXPIRY_INTERVAL_MS: intMs(30_000),
  /**
   * Longest drain on SIGTERM/SIGINT before a forced exit. The default covers a gateway call to a
   * provider with the default `timeoutMs` (60 s, + 1 s of retries, + 10 s to settle; docs/gateway.md).
   */
  FGW_SHUTDOWN_GRACE_MS: intMs(75_000),
  FGW_LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  /** Bearer token of the admin API; unset = the admin API answers 404. */
  FGW_ADMIN_TOKEN: z.string().min(16).optional(),
  /** The origin the dashboard is served at (docs/dashboard.md); unset = the dashboard is off. */
  FGW_PUBLIC_URL: publicUrlSetting,
  /** Bearer token of `GET /metrics`; unset = metrics readable without a token. */
  FGW_METRICS_TOKEN: z.string().min(16).optional(),
  /** IP throttle: requests per minute per client address and instance; 0 disables it. */
  FGW_IP_RPM: z.coerce.number().int().min(0).default(600),
  /** Proxy addresses whose `X-Forwarded-For` is trusted (exact IPs, comma-separated). */
  FGW_TRUSTED_PROXIES: list(""),
  /** Keep a verified API-key secret in memory to skip its hash on later requests (docs/api_keys.md). */
  FGW_REMEMBER_KEY_SECRETS: flag(true),
  /** The subnet this service serves. */
  FGW_NETUID: z.coerce.number().int().min(0).max(65_535).default(41),
  FGW_METAGRAPH_SOURCE: z.enum(["subtensor", "file"]).default("subtensor"),
  FGW_SUBTENSOR_URL: z.string().url().default("https://entrypoint-finney.opentensor.ai"),
  /** The metagraph file (docs/validators.md, "Metagraph file"); required with `FGW_METAGRAPH_SOURCE=file`. */
  FGW_METAGRAPH_FILE: z.string().min(1).optional(),
  /** Metagraph sync interval; the metagraph is stale after 3 intervals without a successful sync. */
  FGW_METAGRAPH_SYNC_MS: intMs(300_000),
  /** Where prices come from: `chain` (CoinGecko + Subtensor) or `file` (docs/scoring.md "Prices"). */
  FGW_PRICES_SOURCE: z.enum(["chain", "file"]).default("chain"),
  FGW_COINGECKO_URL: z.string().url().default("https://api.coingecko.com/api/v3"),
  /** The prices file (docs/scoring.md, "Sources"); required with `FGW_PRICES_SOURCE=file`. */
  FGW_PRICES_FILE: z.string().min(1).optional(),
  /** Prices sync interval; the prices are stale after 3 intervals without a successful sync. */
  FGW_PRICES_SYNC_MS: intMs(300_000),
  /** Allowed |now − timestamp| of a signed request (docs/signatures.md). */
  FGW_SIG_WINDOW_MS: intMs(30_000),
  FGW_VERIFY_WORKERS: z.coerce.number().int().min(0).max(32).default(defaultVerifyWorkers()),
  /** Largest agent a miner may upload, in UTF-8 bytes of code (docs/agents.md). */
  FGW_AGENT_MAX_BYTES: z.coerce.number().int().min(1).max(16 * 1024 * 1024).default(1_048_576),
  /** One new agent version per miner per this period; 0 turns the cooldown off (docs/agents.md). */
  FGW_AGENT_COOLDOWN_MS: z.coerce.number().int().min(0).max(365 * 86_400_000).default(86_400_000),
  /** The provider catalog file (docs/gateway.md); unset = only the built-in `echo` provider. */
  FGW_PROVIDERS_FILE: z.string().min(1).optional(),
  /** Largest body of a completion request, in bytes. */
  FGW_GATEWAY_MAX_BODY_BYTES: z.coerce.number().int().min(1_024).max(64 * 1_048_576).default(1_048_576),
  /** Per-miner daily cap on validator completions, micro-credits (decimal digits). */
  FGW_VALIDATOR_DAILY_CAP_MICRO: microCredits("5000000"),
  /** What the validator completions of one lease (one agent run) may cost in all, micro-credits. */
  FGW_LEASE_LLM_CAP_MICRO: microCredits("500000"),
  /** What one validator's completions for one miner may cost per UTC day, micro-credits. */
  FGW_VALIDATOR_MINER_DAILY_CAP_MICRO: microCredits("2500000"),
  /** How long a validator holds a leased assignment (docs/assignments.md). */
  FGW_LEASE_MS: intMs(600_000),
  /** How long after its lease expired the holder may still submit, while nobody re-claimed it. */
  FGW_LEASE_GRACE_MS: z.coerce.number().int().min(0).max(MAX_TIMER_MS).default(60_000),
  /** Least stake (rao, a decimal integer) a validator hotkey needs besides its permit. */
  FGW_VALIDATOR_MIN_STAKE_RAO: z.string().regex(/^[0-9]{1,30}$/, "Expected a non-negative integer (rao)")
    .default("0").transform((value) => BigInt(value)),
  /** Most live leases one validator hotkey may hold at once. */
  FGW_VALIDATOR_MAX_LEASES: z.coerce.number().int().min(1).max(1_000_000).default(256),
  /** Signed requests per minute one validator hotkey may make, across instances. */
  FGW_VALIDATOR_RPM: z.coerce.number().int().min(1).max(10_000_000).default(6_000),
  /** How often assignments are brought in line with miners, agents and the event pool. */
  FGW_ASSIGNMENT_SYNC_MS: intMs(30_000),
  /** Share of the daily miner budget paid for forecasting, 0..1 (docs/scoring.md "Payouts"). */
  FGW_FORECASTING_WEIGHT_SHARE: z.coerce.number().min(0).max(1).default(1),
  /** The score table's window: events resolved in the last this many days. */
  FGW_SCORING_WINDOW_DAYS: z.coerce.number().positive().max(365).default(WINDOW_DAYS),
  /** How often scoring and the score table run; a run's `computedAt` is the start of its interval. */
  FGW_SCORING_INTERVAL_MS: intMs(300_000),
  /** How long one built leaderboard is served before the next request builds it again (0 = every request). */
  FGW_LEADERBOARD_CACHE_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /** Events one organisation may request fresh runs for per hour (docs/predictions.md "Fresh runs"). */
  FGW_FRESH_RUNS_PER_HOUR: z.coerce.number().int().min(0).max(1_000_000).default(100),
  /** The longest a rendered customer prediction is served from memory (docs/predictions.md "Freshness"). */
  FGW_PREDICTIONS_CACHE_MS: z.coerce.number().int().min(0).max(3_600_000).default(300_000),
  /**
   * How often each instance asks storage which events got new predictions (docs/predictions.md "Freshness").
   */
  FGW_PREDICTIONS_POLL_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  /** How often the forecast history records each live event's consensus (one point per event and hour). */
  FGW_PREDICTION_SNAPSHOT_MS: intMs(3_600_000),
  /** Forecast history points older than this many days are purged. */
  FGW_PREDICTION_HISTORY_DAYS: z.coerce.number().int().min(1).max(3_650).default(400),
}).refine((c) => c.FGW_STORAGE !== "postgres" || c.DATABASE_URL !== undefined, {
  message: "DATABASE_URL is required when FGW_STORAGE=postgres",
  path: ["DATABASE_URL"],
  when: whenValid("FGW_STORAGE", "DATABASE_URL"),
}).refine((c) => c.FGW_METAGRAPH_SOURCE !== "file" || c.FGW_METAGRAPH_FILE !== undefined, {
  message: "FGW_METAGRAPH_FILE is required when FGW_METAGRAPH_SOURCE=file",
  path: ["FGW_METAGRAPH_FILE"],
  when: whenValid("FGW_METAGRAPH_SOURCE", "FGW_METAGRAPH_FILE"),
}).refine((c) => c.FGW_PRICES_SOURCE !== "file" || c.FGW_PRICES_FILE !== undefined, {
  message: "FGW_PRICES_FILE is required when FGW_PRICES_SOURCE=file",
  path: ["FGW_PRICES_FILE"],
  when: whenValid("FGW_PRICES_SOURCE", "FGW_PRICES_FILE"),
}).refine((c) => c.FGW_POOL_MIN_PRICE <= c.FGW_POOL_MAX_PRICE, {
  message: "FGW_POOL_MIN_PRICE must not exceed FGW_POOL_MAX_PRICE",
  path: ["FGW_POOL_MIN_PRICE"],
  when: whenValid("FGW_POOL_MIN_PRICE", "FGW_POOL_MAX_PRICE"),
});

export type Config = z.infer<typeof configSchema>;

/** Validates `env` (default: the process environment); throws a readable error listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = Deno.env.toObject()): Config {
  // An empty variable means "unset" (take the default), never 0 or "".
  const set = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ""),
  );
  const result = configSchema.safeParse(set);
  const unknown = Object.keys(set).filter((name) => name.startsWith("FGW_") && !(name in configSchema.shape));
  if (result.success && unknown.length === 0) return result.data;
  const lines = [
    ...(result.success
      ? []
      : result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`)),
    ...unknown.map((name) => `  ${name}: unknown setting (misspelled?)`),
  ];
  throw new TypeError(`Invalid configuration:\n${lines.join("\n")}`);
}
