/**
 * The bounded retry of a conditional write, shared by the storage adapters and (through
 * `conditionalWrite` in actors/runtime) by the actors. It depends on nothing, so the bottom layer
 * can use it and every layer above can import it.
 */

/** What an attempt answers when its write's condition failed (another writer got in first). */
export const LOST: unique symbol = Symbol("lost");
export type Lost = typeof LOST;

/**
 * A conditional write lost its race more often than its retry bound. Routes answer it as 409
 * `conflict` (with `Retry-After`): the request was fine, the data kept changing under it.
 */
export class WriteConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WriteConflictError";
  }
}

export interface RetryConditionalOptions {
  /** What is being written, for the error: "commit to account org_1". */
  what: string;
  /** Attempts before giving up (at least 1). */
  attempts: number;
  /** The error thrown when every attempt was lost (default: a `WriteConflictError`). */
  conflict?: (message: string) => Error;
}

/**
 * Runs `attempt` (0, 1, …) until it answers anything but `LOST`, at most `attempts` times; then
 * throws the conflict. Each attempt must read afresh what its condition checks: a lost race means
 * another write went in, so the next attempt sees newer data.
 */
export async function retryConditional<R>(
  attempt: (index: number) => Promise<R | Lost>,
  options: RetryConditionalOptions,
): Promise<R> {
  const { what, attempts } = options;
  if (!Number.isSafeInteger(attempts) || attempts < 1) {
    throw new RangeError(`Cannot retry ${what}: attempts must be a positive integer`);
  }
  for (let index = 0; index < attempts; index++) {
    const result = await attempt(index);
    if (result !== LOST) return result;
  }
  const message = `Cannot ${what}: it kept changing under concurrent writers (${attempts} attempts)`;
  throw options.conflict?.(message) ?? new WriteConflictError(message);
}
