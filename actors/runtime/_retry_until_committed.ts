import { ServiceError } from "../kernel/mod.ts";

/**
 * A final answer ends a must-complete message: a ServiceError without `retryAfterSeconds`
 * (not_found, invalid_request, a repeat with another amount…). Anything else — a storage error,
 * a lost race past its bound (409 with Retry-After), `unavailable` — is worth another attempt.
 */
export function isFinalAnswer(error: unknown): boolean {
  return error instanceof ServiceError && error.retryAfterSeconds === undefined;
}

export interface RetryUntilCommittedOptions {
  /** The first pause; it doubles after each failure, up to `maxMs`. */
  firstMs: number;
  maxMs: number;
  /** Told of each transient failure before the pause (`attempt` failures so far). */
  onRetry(attempt: number, error: unknown): void;
}

/** Runs `attempt` until it answers or fails with a final answer, pausing after each transient failure. */
export async function retryUntilCommitted<T>(
  attempt: () => Promise<T>,
  options: RetryUntilCommittedOptions,
): Promise<T> {
  for (let failures = 1;; failures++) {
    try {
      return await attempt();
    } catch (error) {
      if (isFinalAnswer(error)) throw error;
      options.onRetry(failures, error);
      await sleep(backoffMs(failures, options));
    }
  }
}

/** Doubling from `firstMs`, at most `maxMs`, with jitter (half to all of it). */
function backoffMs(failures: number, options: { firstMs: number; maxMs: number }): number {
  const ceiling = Math.min(options.firstMs * 2 ** Math.min(failures - 1, 30), options.maxMs);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
