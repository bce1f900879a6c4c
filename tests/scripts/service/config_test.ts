import assert from "node:assert/strict";
import { loadConfig } from "../../../scripts/service/config.ts";

/** The message of the TypeError `loadConfig(env)` throws. */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof TypeError, `expected a TypeError, got ${error}`);
    return error.message;
  }
  assert.fail(`configuration was accepted: ${JSON.stringify(env)}`);
}

/** The variable names a refusal message lists, one per line. */
function badVariables(message: string): string[] {
  return message.split("\n").slice(1).map((line) => line.trim().split(":")[0]!).toSorted();
}

Deno.test("an empty environment gives the documented defaults", () => {
  const config = loadConfig({});
  assert.equal(config.FGW_HOST, "127.0.0.1");
  assert.equal(config.FGW_PORT, 8080);
  assert.equal(config.FGW_STORAGE, "kv");
  assert.equal(config.FGW_DATA_DIR, "./data");
  assert.equal(config.DATABASE_URL, undefined);
  assert.equal(config.FGW_PG_POOL, 10);
  assert.equal(config.FGW_MARKET_SOURCE, "gamma");
  assert.equal(config.FGW_GAMMA_URL, "https://gamma-api.polymarket.com");
  assert.match(config.FGW_SNAPSHOT_FILE, /actors\/catalog\/sources\/polymarket_snapshot\.json$/);
  assert.equal(config.FGW_INGEST_INTERVAL_MS, 60_000);
  assert.equal(config.FGW_INGEST_MAX_BACKOFF_MS, 900_000);
  assert.equal(config.FGW_VIEW_REFRESH_MS, 2_000);
  assert.equal(config.FGW_ADMIT_MIN_LIQUIDITY_USD, 1_000);
  assert.equal(config.FGW_ADMIT_MIN_VOLUME_USD, 1_000);
  assert.equal(config.FGW_LAST_SEEN_RESOLUTION_MS, 900_000);
  assert.equal(config.FGW_POOL_MIN_PRICE, 0.05);
  assert.equal(config.FGW_POOL_MAX_PRICE, 0.95);
  assert.deepEqual(config.FGW_POOL_DENY_SUBSTRINGS, ["up or down", "updown", "what price will"]);
  assert.equal(config.FGW_CURSOR_TTL_MS, 600_000);
  assert.equal(config.FGW_ACTOR_IDLE_MS, 60_000);
  assert.equal(config.FGW_SHUTDOWN_GRACE_MS, 75_000);
  assert.equal(config.FGW_LOG_LEVEL, "info");
  assert.equal(config.FGW_ADMIN_TOKEN, undefined);
  assert.equal(config.FGW_METRICS_TOKEN, undefined);
  assert.equal(config.FGW_IP_RPM, 600);
  assert.deepEqual(config.FGW_TRUSTED_PROXIES, []);
  assert.equal(config.FGW_NETUID, 41);
  assert.equal(config.FGW_METAGRAPH_SOURCE, "subtensor");
  assert.equal(config.FGW_SUBTENSOR_URL, "https://entrypoint-finney.opentensor.ai");
  assert.equal(config.FGW_METAGRAPH_FILE, undefined);
  assert.equal(config.FGW_METAGRAPH_SYNC_MS, 300_000);
  assert.equal(config.FGW_SIG_WINDOW_MS, 30_000);
  const cpus = navigator.hardwareConcurrency;
  assert.equal(config.FGW_VERIFY_WORKERS, cpus < 2 ? 0 : Math.min(4, cpus));
  assert.equal(loadConfig({ FGW_VERIFY_WORKERS: "0" }).FGW_VERIFY_WORKERS, 0);
  assert.throws(() => loadConfig({ FGW_VERIFY_WORKERS: "-1" }), /FGW_VERIFY_WORKERS/);
  assert.equal(config.FGW_AGENT_MAX_BYTES, 1_048_576);
  assert.equal(config.FGW_AGENT_COOLDOWN_MS, 86_400_000);
  assert.equal(config.FGW_PROVIDERS_FILE, undefined);
  assert.equal(config.FGW_GATEWAY_MAX_BODY_BYTES, 1_048_576);
  assert.equal(config.FGW_VALIDATOR_DAILY_CAP_MICRO, 5_000_000n);
  assert.equal(config.FGW_LEASE_MS, 600_000);
  assert.equal(config.FGW_LEASE_GRACE_MS, 60_000);
  assert.equal(config.FGW_VALIDATOR_MIN_STAKE_RAO, 0n);
  assert.equal(config.FGW_VALIDATOR_MAX_LEASES, 256);
  assert.equal(config.FGW_VALIDATOR_RPM, 6_000);
  assert.equal(config.FGW_ASSIGNMENT_SYNC_MS, 30_000);
});

Deno.test("validator settings: stake in rao beyond 2^53 is exact; a negative or fractional stake is refused", () => {
  const config = loadConfig({ FGW_VALIDATOR_MIN_STAKE_RAO: "18446744073709551615", FGW_LEASE_GRACE_MS: "0" });
  assert.equal(config.FGW_VALIDATOR_MIN_STAKE_RAO, 18_446_744_073_709_551_615n);
  assert.equal(config.FGW_LEASE_GRACE_MS, 0);
  for (const bad of ["-1", "1.5", "1e9"]) {
    assert.throws(() => loadConfig({ FGW_VALIDATOR_MIN_STAKE_RAO: bad }), /FGW_VALIDATOR_MIN_STAKE_RAO/);
  }
  assert.throws(() => loadConfig({ FGW_VALIDATOR_MAX_LEASES: "0" }), /FGW_VALIDATOR_MAX_LEASES/);
});

Deno.test("gateway settings are read from their environment strings, and bad ones refused", () => {
  const config = loadConfig({
    FGW_PROVIDERS_FILE: "/etc/fgw/providers.json",
    FGW_GATEWAY_MAX_BODY_BYTES: "65536",
    FGW_VALIDATOR_DAILY_CAP_MICRO: "12000000",
  });
  assert.equal(config.FGW_PROVIDERS_FILE, "/etc/fgw/providers.json");
  assert.equal(config.FGW_GATEWAY_MAX_BODY_BYTES, 65_536);
  assert.equal(config.FGW_VALIDATOR_DAILY_CAP_MICRO, 12_000_000n);
  const message = refusal({ FGW_GATEWAY_MAX_BODY_BYTES: "12", FGW_VALIDATOR_DAILY_CAP_MICRO: "5.5" });
  assert.deepEqual(badVariables(message), ["FGW_GATEWAY_MAX_BODY_BYTES", "FGW_VALIDATOR_DAILY_CAP_MICRO"]);
});

Deno.test("values are read from their environment strings", () => {
  const config = loadConfig({
    FGW_PORT: "9090",
    FGW_STORAGE: "postgres",
    DATABASE_URL: "postgres://gateway@db.internal:5432/gateway",
    FGW_INGEST_INTERVAL_MS: "30000",
    FGW_ADMIT_MIN_LIQUIDITY_USD: "2500.5",
    FGW_POOL_DENY_SUBSTRINGS: " bitcoin , ,weather ",
    FGW_TRUSTED_PROXIES: "10.0.0.1,10.0.0.2",
    FGW_LOG_LEVEL: "debug",
    FGW_AGENT_MAX_BYTES: "4096",
    FGW_AGENT_COOLDOWN_MS: "0",
  });
  assert.equal(config.FGW_PORT, 9090);
  assert.equal(config.FGW_STORAGE, "postgres");
  assert.equal(config.DATABASE_URL, "postgres://gateway@db.internal:5432/gateway");
  assert.equal(config.FGW_INGEST_INTERVAL_MS, 30_000);
  assert.equal(config.FGW_ADMIT_MIN_LIQUIDITY_USD, 2500.5);
  assert.deepEqual(config.FGW_POOL_DENY_SUBSTRINGS, ["bitcoin", "weather"]);
  assert.deepEqual(config.FGW_TRUSTED_PROXIES, ["10.0.0.1", "10.0.0.2"]);
  assert.equal(config.FGW_LOG_LEVEL, "debug");
  assert.equal(config.FGW_AGENT_MAX_BYTES, 4096);
  assert.equal(config.FGW_AGENT_COOLDOWN_MS, 0, "0 turns the agent cooldown off");
});

Deno.test("bad values are refused with a TypeError that lists every bad variable", () => {
  const message = refusal({
    FGW_PORT: "eighty",
    FGW_STORAGE: "mysql",
    FGW_INGEST_INTERVAL_MS: "-5",
    FGW_VIEW_REFRESH_MS: "1.5",
    FGW_POOL_MIN_PRICE: "2",
    FGW_LOG_LEVEL: "verbose",
    FGW_GAMMA_URL: "not a url",
    FGW_ADMIN_TOKEN: "short",
    FGW_METRICS_TOKEN: "short",
    FGW_AGENT_MAX_BYTES: "0",
  });
  assert.match(message, /^Invalid configuration:\n/);
  assert.deepEqual(badVariables(message), [
    "FGW_ADMIN_TOKEN",
    "FGW_AGENT_MAX_BYTES",
    "FGW_GAMMA_URL",
    "FGW_INGEST_INTERVAL_MS",
    "FGW_LOG_LEVEL",
    "FGW_METRICS_TOKEN",
    "FGW_POOL_MIN_PRICE",
    "FGW_PORT",
    "FGW_STORAGE",
    "FGW_VIEW_REFRESH_MS",
  ]);
});

Deno.test("postgres storage without DATABASE_URL is refused", () => {
  const message = refusal({ FGW_STORAGE: "postgres" });
  assert.deepEqual(badVariables(message), ["DATABASE_URL"]);
  assert.match(message, /DATABASE_URL is required when FGW_STORAGE=postgres/);
});

Deno.test("cross-variable rules are reported beside other bad variables", () => {
  const message = refusal({
    FGW_STORAGE: "postgres",
    FGW_PORT: "70000",
    FGW_POOL_MIN_PRICE: "0.9",
    FGW_POOL_MAX_PRICE: "0.1",
  });
  assert.deepEqual(badVariables(message), ["DATABASE_URL", "FGW_POOL_MIN_PRICE", "FGW_PORT"]);
  assert.match(message, /FGW_POOL_MIN_PRICE must not exceed FGW_POOL_MAX_PRICE/);
});

Deno.test("a minimum pool price above the maximum is refused", () => {
  assert.deepEqual(badVariables(refusal({ FGW_POOL_MIN_PRICE: "0.6", FGW_POOL_MAX_PRICE: "0.4" })), [
    "FGW_POOL_MIN_PRICE",
  ]);
  assert.equal(loadConfig({ FGW_POOL_MIN_PRICE: "0.4", FGW_POOL_MAX_PRICE: "0.4" }).FGW_POOL_MIN_PRICE, 0.4);
});

Deno.test("the file metagraph source needs FGW_METAGRAPH_FILE; netuid and source are checked", () => {
  assert.deepEqual(badVariables(refusal({ FGW_METAGRAPH_SOURCE: "file" })), ["FGW_METAGRAPH_FILE"]);
  assert.match(
    refusal({ FGW_METAGRAPH_SOURCE: "file" }),
    /FGW_METAGRAPH_FILE is required when FGW_METAGRAPH_SOURCE=file/,
  );
  assert.deepEqual(
    badVariables(refusal({ FGW_NETUID: "65536", FGW_METAGRAPH_SOURCE: "chain", FGW_SUBTENSOR_URL: "x" })),
    ["FGW_METAGRAPH_SOURCE", "FGW_NETUID", "FGW_SUBTENSOR_URL"],
  );
  const config = loadConfig({
    FGW_NETUID: "7",
    FGW_METAGRAPH_SOURCE: "file",
    FGW_METAGRAPH_FILE: "/etc/fgw/metagraph.json",
    FGW_METAGRAPH_SYNC_MS: "60000",
  });
  assert.equal(config.FGW_NETUID, 7);
  assert.equal(config.FGW_METAGRAPH_FILE, "/etc/fgw/metagraph.json");
  assert.equal(config.FGW_METAGRAPH_SYNC_MS, 60_000);
});

Deno.test("scoring settings default as docs/configuration.md says and refuse values out of range", () => {
  const config = loadConfig({});
  assert.equal(config.FGW_FORECASTING_WEIGHT_SHARE, 1);
  assert.equal(config.FGW_SCORING_WINDOW_DAYS, 30);
  assert.equal(config.FGW_SCORING_INTERVAL_MS, 300_000);
  const set = loadConfig({
    FGW_FORECASTING_WEIGHT_SHARE: "0.4",
    FGW_SCORING_WINDOW_DAYS: "7.5",
    FGW_SCORING_INTERVAL_MS: "60000",
  });
  assert.deepEqual(
    [set.FGW_FORECASTING_WEIGHT_SHARE, set.FGW_SCORING_WINDOW_DAYS, set.FGW_SCORING_INTERVAL_MS],
    [0.4, 7.5, 60_000],
  );
  const message = refusal({
    FGW_FORECASTING_WEIGHT_SHARE: "1.5",
    FGW_SCORING_WINDOW_DAYS: "0",
    FGW_SCORING_INTERVAL_MS: "0",
  });
  assert.deepEqual(badVariables(message), [
    "FGW_FORECASTING_WEIGHT_SHARE",
    "FGW_SCORING_INTERVAL_MS",
    "FGW_SCORING_WINDOW_DAYS",
  ]);
});

Deno.test("FGW_LEADERBOARD_CACHE_MS defaults to a minute, accepts 0 and refuses what is not 0..3600000 ms", () => {
  assert.equal(loadConfig({}).FGW_LEADERBOARD_CACHE_MS, 60_000);
  assert.equal(loadConfig({ FGW_LEADERBOARD_CACHE_MS: "0" }).FGW_LEADERBOARD_CACHE_MS, 0);
  assert.equal(loadConfig({ FGW_LEADERBOARD_CACHE_MS: "2000" }).FGW_LEADERBOARD_CACHE_MS, 2_000);
  for (const bad of ["-1", "1.5", "3600001", "soon"]) {
    assert.deepEqual(badVariables(refusal({ FGW_LEADERBOARD_CACHE_MS: bad })), ["FGW_LEADERBOARD_CACHE_MS"]);
  }
});

Deno.test("FGW_FRESH_RUNS_PER_HOUR defaults to 100 (docs/configuration.md), accepts 0 and refuses fractions and negatives", () => {
  assert.equal(loadConfig({}).FGW_FRESH_RUNS_PER_HOUR, 100);
  assert.equal(loadConfig({ FGW_FRESH_RUNS_PER_HOUR: "0" }).FGW_FRESH_RUNS_PER_HOUR, 0);
  assert.equal(loadConfig({ FGW_FRESH_RUNS_PER_HOUR: "250" }).FGW_FRESH_RUNS_PER_HOUR, 250);
  for (const bad of ["1.5", "-1", "many"]) {
    assert.deepEqual(badVariables(refusal({ FGW_FRESH_RUNS_PER_HOUR: bad })), ["FGW_FRESH_RUNS_PER_HOUR"]);
  }
});
