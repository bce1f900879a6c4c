import { ServiceError } from "../kernel/mod.ts";
import type { Actor, MessageMap, ShedReason } from "./actor_kind.ts";

/** Timers take at most a signed 32-bit number of milliseconds. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** One message in a mailbox, with its caller's reply. */
export interface Envelope {
  message: unknown;
  mustComplete: boolean;
  /** "gone": its caller gave up before its turn; it is skipped. */
  state: "queued" | "running" | "gone";
  reply: PromiseWithResolvers<unknown>;
  /** Stops watching the caller's timeout and signal. */
  unwatch: () => void;
}

/** The mailbox of one (kind, id), with its activated actor. */
export interface Slot {
  actor: Promise<Actor<MessageMap>> | undefined;
  queue: Envelope[];
  /** Messages waiting (not gone) or running. */
  pending: number;
  /** True while a message runs (the queue is being worked through). */
  pumping: boolean;
  /** `drain` callers waiting for the queue to empty. */
  waiters: (() => void)[];
  idleSince: number;
}

export function newSlot(nowMs: number): Slot {
  return { actor: undefined, queue: [], pending: 0, pumping: false, waiters: [], idleSince: nowMs };
}

export function newEnvelope(message: unknown, mustComplete: boolean): Envelope {
  return { message, mustComplete, state: "queued", reply: Promise.withResolvers(), unwatch: () => {} };
}

/**
 * Calls `giveUp` once, when `timeoutMs` passes or `signal` aborts (at once if it already has),
 * unless `envelope.unwatch()` is called first.
 */
export function watchCaller(
  envelope: Envelope,
  watch: { signal: AbortSignal | undefined; timeoutMs: number; giveUp(reason: "timeout" | "aborted"): void },
): void {
  const { signal } = watch;
  const giveUp = (reason: "timeout" | "aborted") => {
    envelope.unwatch();
    watch.giveUp(reason);
  };
  const onAbort = () => giveUp("aborted");
  const timer = setTimeout(() => giveUp("timeout"), watch.timeoutMs);
  signal?.addEventListener("abort", onAbort, { once: true });
  envelope.unwatch = () => {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  };
  if (signal?.aborted) giveUp("aborted");
}

/** 503 `unavailable` (with Retry-After) for a caller whose message was refused or who gave up waiting. */
export function unavailable(kind: string, why: { reason: ShedReason; mustComplete: boolean }): ServiceError {
  const text = why.reason === "full"
    ? `Service is busy: too many requests are waiting for this ${kind}`
    : why.reason === "timeout"
    ? `Service is busy: this ${kind} did not answer in time`
    : `Request was cancelled before this ${kind} answered`;
  const still = why.mustComplete ? "; it will still be completed" : "";
  return new ServiceError("unavailable", `${text}${still}`, { retryAfterSeconds: 1 });
}

export function isTimerMs(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 1 && value <= MAX_TIMER_MS;
}

/** `value`, or a RangeError naming the setting. */
export function checked(name: string, value: number, valid: (value: number) => boolean): number {
  if (!valid(value)) throw new RangeError(`Invalid ${name}: ${value}`);
  return value;
}
