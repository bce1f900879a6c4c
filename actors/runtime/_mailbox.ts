import { ServiceError } from "../kernel/mod.ts";
import {
  type Actor,
  type ActorKind,
  DEFAULT_MAX_BATCH,
  type MessageMap,
  type ShedReason,
} from "./actor_kind.ts";

/** Timers take at most a signed 32-bit number of milliseconds. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A registered kind, its limits and its mailboxes. */
export interface Registration {
  kind: ActorKind<MessageMap>;
  maxPending: number;
  timeoutMs: number;
  slots: Map<string, Slot>;
  /** Messages waiting or running in all mailboxes of the kind. */
  pending: number;
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

/** One message in a mailbox, with its caller's reply and how long the caller waits for it. */
export interface Envelope {
  registration: Registration;
  slot: Slot;
  message: unknown;
  mustComplete: boolean;
  /** "gone": its caller gave up before its turn; it is skipped. */
  state: "queued" | "running" | "gone";
  reply: PromiseWithResolvers<unknown>;
  /** When the caller stops waiting (`performance.now()` time). */
  deadlineMs: number;
  /** The caller's signal and the listener watching it, if it gave one. */
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

export function newSlot(nowMs: number): Slot {
  return { actor: undefined, queue: [], pending: 0, pumping: false, waiters: [], idleSince: nowMs };
}

export function newEnvelope(
  at: { registration: Registration; slot: Slot },
  message: { message: unknown; mustComplete: boolean; timeoutMs: number },
): Envelope {
  return {
    ...at,
    ...message,
    state: "queued",
    reply: Promise.withResolvers(),
    deadlineMs: performance.now() + message.timeoutMs,
    signal: undefined,
    onAbort: undefined,
  };
}

/**
 * What runs next after `first`, just taken from the mailbox: `first` alone, or, when its kind
 * batches it, `first` and the batchable messages waiting right behind it (up to the kind's
 * `maxBatch`; messages whose caller has gone are dropped on the way, a message that is not
 * batchable ends the batch and stays first in the queue).
 */
export function takeBatch(slot: Slot, first: Envelope): Envelope[] {
  const { kind } = first.registration;
  const batch = [first];
  if (!kind.batchable?.(first.message)) return batch;
  const max = kind.maxBatch ?? DEFAULT_MAX_BATCH;
  while (batch.length < max && slot.queue.length > 0) {
    const next = slot.queue[0]!;
    if (next.state === "queued" && !kind.batchable(next.message)) break;
    slot.queue.shift();
    if (next.state === "queued") batch.push(next);
  }
  return batch;
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
