import type { ProviderCatalog } from "./provider_catalog.ts";
import { longestCallMs } from "./providers/provider_http.ts";

/** Time allowed to settle (or release) a call after its provider answered. */
export const SETTLE_ALLOWANCE_MS = 10_000;

/**
 * What is wrong with the hold TTL and the shutdown grace for this catalog, one sentence per
 * problem (empty when both are fine): a hold must outlive the longest whole call (every attempt,
 * the waits between them, and its settle), or it could expire and be released while its call
 * still runs; the shutdown grace must cover the same, so calls in flight settle before the process
 * exits (a process killed anyway leaves holds that expire and are released, never charged).
 * Only providers that make network calls count (`echo` answers at once).
 */
export function gatewayTimingProblems(
  catalog: ProviderCatalog,
  settings: { holdTtlMs: number; shutdownGraceMs: number },
): string[] {
  const remote = catalog.providers.filter((p) => p.kind !== "echo");
  if (remote.length === 0) return [];
  const slowest = remote.reduce((a, b) => (longestCallMs(b) > longestCallMs(a) ? b : a));
  const needed = longestCallMs(slowest) + SETTLE_ALLOWANCE_MS;
  const why = `the longest provider call (${longestCallMs(slowest)} ms, provider "${slowest.id}": its ` +
    `timeoutMs plus 1 s for retries) plus ${SETTLE_ALLOWANCE_MS} ms for its settle = ${needed} ms`;
  const problems: string[] = [];
  if (settings.holdTtlMs <= needed) {
    problems.push(
      `FGW_HOLD_TTL_MS (${settings.holdTtlMs}) must exceed ${why}, so a hold never expires while its call runs`,
    );
  }
  if (settings.shutdownGraceMs < needed) {
    problems.push(
      `FGW_SHUTDOWN_GRACE_MS (${settings.shutdownGraceMs}) must cover ${why}, so calls in flight settle before exit`,
    );
  }
  return problems;
}
