import type { AskOrg } from "../../actors/billing/mod.ts";
import {
  AdapterRegistry,
  CompletionDesk,
  gatewayTimingProblems,
  loadProviderCatalog,
  type ProviderCatalog,
} from "../../actors/gateway/mod.ts";
import type { Clock, Logger, Metrics, UpstreamObserver } from "../../actors/kernel/mod.ts";
import type { Config } from "./config.ts";
import type { ValidatorCaps } from "../../routes/gateway/validator_completions.ts";

/**
 * A configuration the service refuses to start with (a bad provider catalog, a hold TTL or a
 * shutdown grace too short for its providers). `start.ts` prints the message and exits with 2,
 * like a bad setting.
 */
export class StartupRefusal extends Error {
  override readonly name = "StartupRefusal";
}

/** The gateway's providers as this instance runs them. */
export interface GatewayWiring {
  catalog: ProviderCatalog;
  adapters: AdapterRegistry;
}

/**
 * Loads `FGW_PROVIDERS_FILE` (only the built-in `echo` without it) and builds one adapter per
 * provider, each attempt reported to `upstreams`. Refuses (`StartupRefusal`, every problem listed)
 * a catalog that is invalid, or one whose slowest provider call `FGW_HOLD_TTL_MS` does not exceed
 * or `FGW_SHUTDOWN_GRACE_MS` does not cover (docs/gateway.md).
 */
export async function createGateway(
  config: Pick<Config, "FGW_PROVIDERS_FILE" | "FGW_HOLD_TTL_MS" | "FGW_SHUTDOWN_GRACE_MS">,
  deps: { upstreams?: UpstreamObserver; env?: Record<string, string> } = {},
): Promise<GatewayWiring> {
  let catalog: ProviderCatalog;
  try {
    catalog = await loadProviderCatalog(config.FGW_PROVIDERS_FILE, deps.env ? { env: deps.env } : {});
  } catch (error) {
    throw new StartupRefusal(error instanceof Error ? error.message : String(error));
  }
  const problems = gatewayTimingProblems(catalog, {
    holdTtlMs: config.FGW_HOLD_TTL_MS,
    shutdownGraceMs: config.FGW_SHUTDOWN_GRACE_MS,
  });
  if (problems.length > 0) {
    const where = config.FGW_PROVIDERS_FILE ?? "(built-in)";
    throw new StartupRefusal(
      `Refusing to start: the gateway's timing settings do not fit the provider catalog ${where}:\n` +
        problems.map((problem) => `  ${problem}`).join("\n"),
    );
  }
  const adapters = new AdapterRegistry(catalog, deps.upstreams ? { observer: deps.upstreams } : {});
  return { catalog, adapters };
}

/**
 * The owner of this instance's billed completions (both gateway routes ask it): the gateway's
 * providers, billed on the OrgActors `askOrg` reaches, each charge counted in `metrics`.
 */
export function createCompletionDesk(
  gateway: GatewayWiring,
  deps: { askOrg: AskOrg; clock: Clock; log: Logger; metrics: Metrics },
): CompletionDesk {
  const { askOrg, clock, log, metrics } = deps;
  return new CompletionDesk({
    ...gateway,
    askOrg,
    clock,
    log,
    onCharge: (provider, basis) => metrics.gatewayCharged(provider, basis),
  });
}

/** The spend caps of validator completions (docs/billing.md, "Spend caps of validator completions"). */
export function validatorCapsOf(config: Config): ValidatorCaps {
  return {
    minerDailyMicro: config.FGW_VALIDATOR_DAILY_CAP_MICRO,
    validatorMinerDailyMicro: config.FGW_VALIDATOR_MINER_DAILY_CAP_MICRO,
    leaseMicro: config.FGW_LEASE_LLM_CAP_MICRO,
  };
}
