import { ServiceError } from "../kernel/mod.ts";
import type { BatchOutcome } from "./actor_kind.ts";

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

export interface RetryBatchOptions<T, R> extends RetryUntilCommittedOptions {
  /** True for an item whose transient failure is tried again (a must-complete message). */
  mustComplete(item: T): boolean;
  /**
   * Told after each round of the items that are done, with their outcomes (in batch order);
   * `last` when no item is left to try again.
   */
  onDone(done: { item: T; outcome: BatchOutcome<R> }[], last: boolean): void;
}

/**
 * Runs `attempt` over `items` (one outcome per item, in order; a rejection fails them all), then,
 * after a pause as in `retryUntilCommitted`, again over the must-complete items whose failure was
 * transient, until none is left.
 */
export async function retryBatchUntilCommitted<T, R>(
  items: T[],
  attempt: (items: T[]) => Promise<BatchOutcome<R>[]>,
  options: RetryBatchOptions<T, R>,
): Promise<void> {
  let open = items;
  for (let failures = 1;; failures++) {
    const outcomes = await outcomesOf(open, attempt);
    const done: { item: T; outcome: BatchOutcome<R> }[] = [];
    const again: T[] = [];
    let error: unknown;
    open.forEach((item, i) => {
      const outcome = outcomes[i]!;
      const retry = "error" in outcome && options.mustComplete(item) && !isFinalAnswer(outcome.error);
      if (!retry) {
        done.push({ item, outcome });
        return;
      }
      error ??= outcome.error;
      again.push(item);
    });
    options.onDone(done, again.length === 0);
    if (again.length === 0) return;
    options.onRetry(failures, error);
    await sleep(backoffMs(failures, options));
    open = again;
  }
}

async function outcomesOf<T, R>(
  items: T[],
  attempt: (items: T[]) => Promise<BatchOutcome<R>[]>,
): Promise<BatchOutcome<R>[]> {
  try {
    const outcomes = await attempt(items);
    if (outcomes.length === items.length) return outcomes;
    const error = new TypeError(
      `A batch of ${items.length} messages was answered ${outcomes.length} outcomes`,
    );
    return items.map(() => ({ error }));
  } catch (error) {
    return items.map(() => ({ error }));
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
