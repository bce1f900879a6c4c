import { ServiceError } from "../kernel/mod.ts";
import { LOST, type Lost, retryConditional } from "../../storage/retry_conditional.ts";

export { LOST, type Lost };

/** Attempts of a conditional write when the caller names none. */
export const DEFAULT_WRITE_ATTEMPTS = 5;

/** Load → apply → conditional write, retried from a fresh load while the write's condition is lost. */
export interface ConditionalWrite<S, R> {
  /** What is written, for the 409 message: "settle hold hold_1". */
  what: string;
  /** Reads what the write depends on; again after every lost race. */
  load(): Promise<S>;
  /**
   * Decides from `state`: answers (with or without writing), throws a final answer, or makes one
   * conditional write and answers `LOST` when its condition failed.
   */
  apply(state: S): Promise<R | Lost>;
  /** The state already at hand: the first attempt applies it instead of loading. */
  initial?: S;
  /** At most this many attempts (default `DEFAULT_WRITE_ATTEMPTS`). */
  attempts?: number;
  /**
   * The answer when every attempt was lost, for the rare caller whose contract names one (key
   * authentication fails closed with 401); without it, 409 `conflict` is thrown.
   */
  exhausted?: () => R;
}

/**
 * The one conditional-write loop of the actors: load, apply, and when the write lost its race to
 * another writer, load again and retry. Running out of attempts throws 409 `conflict` with a
 * `Retry-After` (the request was fine; the data kept changing under it), which also marks it as
 * worth retrying for a must-complete message (docs/runtime.md).
 */
export async function conditionalWrite<S, R>(write: ConditionalWrite<S, R>): Promise<R> {
  const hasInitial = "initial" in write;
  const step = async (index: number): Promise<R | Lost> => {
    const state = index === 0 && hasInitial ? write.initial as S : await write.load();
    return await write.apply(state);
  };
  const options = { what: write.what, attempts: write.attempts ?? DEFAULT_WRITE_ATTEMPTS };
  const { exhausted } = write;
  if (!exhausted) {
    const conflict = (message: string) => new ServiceError("conflict", message, { retryAfterSeconds: 1 });
    return await retryConditional(step, { ...options, conflict });
  }
  // Made only when the attempts run out: an Error captures a stack, which cost key authentication
  // (the one caller with `exhausted`, on every request) about a tenth of its time.
  let ranOut: Error | undefined;
  try {
    return await retryConditional(step, {
      ...options,
      conflict: () => ranOut = new Error("Every attempt was lost"),
    });
  } catch (error) {
    if (ranOut !== undefined && error === ranOut) return exhausted();
    throw error;
  }
}
