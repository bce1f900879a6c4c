import type { Clock, Logger } from "../kernel/mod.ts";
import { silentLogger } from "../kernel/mod.ts";
import type { ActorKind, ActorObserver, AskOptions, MessageFor, MessageMap } from "./actor_kind.ts";
import {
  checked,
  type Envelope,
  isTimerMs,
  newEnvelope,
  newSlot,
  type Registration,
  type Slot,
  takeBatch,
  unavailable,
} from "./_mailbox.ts";
import { retryBatchUntilCommitted, retryUntilCommitted } from "./_retry_until_committed.ts";
import { Deadlines } from "./_deadlines.ts";
import { drainAll, evictIdle, receiveMany, receiveOne } from "./_actor_receive.ts";
import type { ActorSystemOptions, KindOptions } from "./actor_options.ts";

export { isFinalAnswer } from "./_retry_until_committed.ts";

/**
 * Virtual actors addressed by (kind, id). Kinds are registered once; each id of a kind has one
 * FIFO mailbox whose messages run strictly one at a time; a failed message rejects its own caller
 * and the next one runs. Callers wait at most a timeout (or until their signal aborts) and a full
 * mailbox refuses at once, both with 503 `unavailable`; a message whose caller gave up before its
 * turn is skipped, except must-complete messages, which are retried until they commit. An actor
 * is activated on its first message and evicted by `sweep` once idle and empty. A kind may take
 * the batchable messages waiting together in one `receiveBatch` (still one batch at a time, in
 * mailbox order). docs/runtime.md.
 */
export class ActorSystem {
  readonly #kinds = new Map<string, Registration>();
  readonly #deadlines = new Deadlines<Envelope>((envelope) => this.#giveUp(envelope, "timeout"));
  readonly #clock: Clock;
  readonly #idleMs: number;
  readonly #maxPending: number;
  readonly #timeoutMs: number;
  readonly #retry: { firstMs: number; maxMs: number };
  readonly #observer: ActorObserver | undefined;
  readonly #log: Logger;

  constructor(options: ActorSystemOptions) {
    this.#clock = options.clock;
    this.#idleMs = options.idleMs ?? 60_000;
    this.#maxPending = checked("maxPending", options.maxPending ?? 1_000, isPositive);
    this.#timeoutMs = checked("timeoutMs", options.timeoutMs ?? 30_000, isTimerMs);
    this.#retry = { firstMs: options.retry?.firstMs ?? 50, maxMs: options.retry?.maxMs ?? 5_000 };
    this.#observer = options.observer;
    this.#log = options.log ?? silentLogger;
  }

  /** Registers `kind` under its name (a name already registered is a TypeError); returns it. */
  register<Map extends MessageMap>(kind: ActorKind<Map>, options: KindOptions = {}): ActorKind<Map> {
    if (this.#kinds.has(kind.name)) {
      throw new TypeError(`Cannot register actor kind: ${kind.name} is already registered`);
    }
    if (kind.maxBatch !== undefined) checked("maxBatch", kind.maxBatch, isPositive);
    this.#kinds.set(kind.name, {
      // An ActorKind<Map> handles every MessageOf<Map>; the system only passes those on.
      kind: kind as unknown as ActorKind<MessageMap>,
      maxPending: checked("maxPending", options.maxPending ?? this.#maxPending, isPositive),
      timeoutMs: checked("timeoutMs", options.timeoutMs ?? this.#timeoutMs, isTimerMs),
      slots: new Map(),
      pending: 0,
    });
    return kind;
  }

  /**
   * Sends `message` to the actor (kind, id) and resolves with its reply. Rejects with 503
   * `unavailable` when the mailbox is full, or when the caller's timeout passes or signal aborts
   * before the reply (the message is then skipped if it has not started, unless must-complete).
   */
  ask<Map extends MessageMap, K extends keyof Map>(
    kind: ActorKind<Map>,
    id: string,
    message: MessageFor<Map, K>,
    options: AskOptions = {},
  ): Promise<Map[K]["reply"]> {
    const registration = this.#kinds.get(kind.name);
    if (!registration || registration.kind !== (kind as unknown)) {
      return Promise.reject(new TypeError(`Cannot ask actor kind: ${kind.name} is not registered`));
    }
    const timeoutMs = options.timeoutMs ?? registration.timeoutMs;
    if (!isTimerMs(timeoutMs)) return Promise.reject(new RangeError(`Invalid timeoutMs: ${timeoutMs}`));
    const mustComplete = kind.mustComplete?.(message) ?? false;
    if (!mustComplete && options.signal?.aborted) {
      // Gone before it asked: refused before any mailbox, so no hook hears of it.
      return Promise.reject(unavailable(kind.name, { reason: "aborted", mustComplete }));
    }
    if (!mustComplete && this.#full(registration, id)) {
      this.#notify((observer) => observer.onShed?.(kind.name, "full"));
      return Promise.reject(unavailable(kind.name, { reason: "full", mustComplete }));
    }
    const slot = this.#slotFor(registration, id);
    const envelope = newEnvelope({ registration, slot }, { message, mustComplete, timeoutMs });
    slot.queue.push(envelope);
    slot.pending++;
    registration.pending++;
    this.#notify((observer) => observer.onEnqueue?.(kind.name, slot.pending));
    this.#watch(envelope, options.signal);
    if (!slot.pumping) this.#next(registration, id, slot);
    // The kind answers each message with the reply its map gives that message.
    return envelope.reply.promise as Promise<Map[K]["reply"]>;
  }

  /** Messages waiting or running in all mailboxes of the kind named `kindName`. */
  pending(kindName: string): number {
    return this.#kinds.get(kindName)?.pending ?? 0;
  }

  /** Evicts every actor idle for `idleMs` with an empty mailbox; returns how many. */
  sweep(): number {
    return evictIdle(this.#kinds.values(), this.#clock() - this.#idleMs);
  }

  /** Drops the cached instance of (kind, id) so its next message reloads state from storage. */
  forget(kindName: string, id: string): void {
    const slots = this.#kinds.get(kindName)?.slots;
    const slot = slots?.get(id);
    if (slot && !slot.pumping) slots!.delete(id);
    else if (slot) slot.actor = undefined;
  }

  /** Number of actors currently held (active or with messages queued). */
  get size(): number {
    let size = 0;
    for (const { slots } of this.#kinds.values()) size += slots.size;
    return size;
  }

  /** Resolves once every mailbox is empty (must-complete messages included: they may retry a while). */
  drain(): Promise<void> {
    return drainAll(() => this.#kinds.values());
  }

  #full(registration: Registration, id: string): boolean {
    return (registration.slots.get(id)?.pending ?? 0) >= registration.maxPending;
  }

  #slotFor(registration: Registration, id: string): Slot {
    let slot = registration.slots.get(id);
    if (!slot) {
      slot = newSlot(this.#clock());
      registration.slots.set(id, slot);
    }
    return slot;
  }

  /** Watches the caller's deadline and signal (at once if it already aborted). */
  #watch(envelope: Envelope, signal: AbortSignal | undefined): void {
    this.#deadlines.add(envelope);
    if (!signal) return;
    envelope.signal = signal;
    envelope.onAbort = () => this.#giveUp(envelope, "aborted");
    signal.addEventListener("abort", envelope.onAbort, { once: true });
    if (signal.aborted) this.#giveUp(envelope, "aborted");
  }

  #unwatch(envelope: Envelope): void {
    this.#deadlines.delete(envelope);
    if (envelope.onAbort) envelope.signal?.removeEventListener("abort", envelope.onAbort);
    envelope.onAbort = undefined;
  }

  /** Answers a caller that stopped waiting; its message is skipped if it still waits (unless must-complete). */
  #giveUp(envelope: Envelope, reason: "timeout" | "aborted"): void {
    this.#unwatch(envelope);
    const { registration, slot, mustComplete } = envelope;
    const { name } = registration.kind;
    if (envelope.state === "queued" && !mustComplete) {
      envelope.state = "gone";
      slot.pending--;
      registration.pending--;
      this.#notify((observer) => observer.onShed?.(name, reason));
    }
    envelope.reply.reject(unavailable(name, { reason, mustComplete }));
  }

  /** Starts the next message still wanted, or marks the mailbox idle when there is none. */
  #next(registration: Registration, id: string, slot: Slot): void {
    let envelope = slot.queue.shift();
    while (envelope?.state === "gone") envelope = slot.queue.shift();
    slot.pumping = envelope !== undefined;
    if (envelope) {
      const batch = takeBatch(slot, envelope);
      if (batch.length === 1) void this.#deliver(registration, id, { slot, envelope });
      else void this.#deliverBatch(registration, id, { slot, batch });
      return;
    }
    slot.idleSince = this.#clock();
    for (const resolve of slot.waiters.splice(0)) resolve();
  }

  /**
   * Runs one message, then starts the next before answering its caller (so a caller that has its
   * reply finds the mailbox as it is after the message). Never rejects.
   */
  async #deliver(
    registration: Registration,
    id: string,
    at: { slot: Slot; envelope: Envelope },
  ): Promise<void> {
    const { slot, envelope } = at;
    envelope.state = "running";
    const startedAt = this.#clock();
    let outcome: { reply: unknown } | { error: unknown };
    try {
      outcome = {
        reply: envelope.mustComplete
          ? await this.#untilCommitted(registration, id, slot, envelope.message)
          : await receiveOne(registration, id, slot, envelope.message),
      };
    } catch (error) {
      outcome = { error };
    }
    this.#unwatch(envelope);
    slot.pending--;
    registration.pending--;
    const ms = this.#clock() - startedAt;
    this.#notify((observer) => observer.onDone?.(registration.kind.name, ms, "error" in outcome));
    this.#next(registration, id, slot);
    if ("error" in outcome) envelope.reply.reject(outcome.error);
    else envelope.reply.resolve(outcome.reply);
  }

  /**
   * Runs a batch (`takeBatch`) like one message: each caller is answered with its own outcome,
   * and the must-complete messages that failed transiently are received again, as a smaller
   * batch, after the same growing pause. Never rejects.
   */
  async #deliverBatch(
    registration: Registration,
    id: string,
    at: { slot: Slot; batch: Envelope[] },
  ): Promise<void> {
    const { slot, batch } = at;
    const { name } = registration.kind;
    for (const envelope of batch) envelope.state = "running";
    const startedAt = this.#clock();
    const receive = (envelopes: Envelope[]) =>
      receiveMany(registration, id, slot, envelopes.map((envelope) => envelope.message));
    await retryBatchUntilCommitted(batch, receive, {
      ...this.#retry,
      mustComplete: (envelope) => envelope.mustComplete,
      onRetry: this.#onRetry(name, id),
      onDone: (done, last) => {
        const ms = this.#clock() - startedAt;
        for (const { item, outcome } of done) {
          this.#unwatch(item);
          slot.pending--;
          registration.pending--;
          this.#notify((observer) => observer.onDone?.(name, ms, "error" in outcome));
        }
        if (last) this.#next(registration, id, slot);
        for (const { item, outcome } of done) {
          if ("error" in outcome) item.reply.reject(outcome.error);
          else item.reply.resolve(outcome.reply);
        }
      },
    });
  }

  /** Receives a must-complete message again, after a growing pause, until it is not a transient failure. */
  #untilCommitted(registration: Registration, id: string, slot: Slot, message: unknown): Promise<unknown> {
    const { name } = registration.kind;
    return retryUntilCommitted(() => receiveOne(registration, id, slot, message), {
      ...this.#retry,
      onRetry: this.#onRetry(name, id),
    });
  }

  /** What a must-complete retry tells: the observer, and a warning in the log. */
  #onRetry(kind: string, id: string): (attempt: number, error: unknown) => void {
    return (attempt, error) => {
      this.#notify((observer) => observer.onRetry?.(kind, attempt, error));
      const msg = "must-complete message failed; retrying";
      this.#log({ level: "warn", msg, kind, id, attempt, error: String(error) });
    };
  }

  #notify(call: (observer: ActorObserver) => void): void {
    if (!this.#observer) return;
    try {
      call(this.#observer);
    } catch (error) {
      this.#log({ level: "error", msg: "actor observer hook failed", error: String(error) });
    }
  }
}

function isPositive(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 1;
}
