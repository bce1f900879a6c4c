import type { Clock } from "../kernel/mod.ts";

/** An activated actor: handles one message at a time, in arrival order. */
export interface Actor<M, R> {
  receive(message: M): Promise<R>;
}

/** A kind of virtual actor: how to activate an instance for an id (loading its state). */
export interface ActorKind<M, R> {
  readonly name: string;
  activate(id: string): Promise<Actor<M, R>>;
}

interface Slot {
  actor: Promise<Actor<unknown, unknown>> | undefined;
  tail: Promise<void>;
  pending: number;
  idleSince: number;
}

export interface ActorSystemOptions {
  clock: Clock;
  /** An actor idle this long with an empty mailbox is evicted by `sweep`. */
  idleMs?: number;
}

/**
 * Virtual actors addressed by (kind, id). Each id has one FIFO mailbox: its messages run
 * strictly one at a time; a failed message rejects its own caller and the next one runs.
 * An actor is activated on its first message and evicted by `sweep` once idle and empty.
 */
export class ActorSystem {
  readonly #slots = new Map<string, Slot>();
  readonly #clock: Clock;
  readonly #idleMs: number;

  constructor(options: ActorSystemOptions) {
    this.#clock = options.clock;
    this.#idleMs = options.idleMs ?? 60_000;
  }

  /** Sends a message to the actor (kind, id) and resolves with its reply. */
  ask<M, R>(kind: ActorKind<M, R>, id: string, message: M): Promise<R> {
    const slot = this.#slotFor(`${kind.name}\u0000${id}`);
    slot.pending++;
    const run = async (): Promise<R> => {
      const actor = await this.#activated(slot, kind, id);
      return await actor.receive(message);
    };
    const result = slot.tail.then(run);
    const done = () => {
      slot.pending--;
      slot.idleSince = this.#clock();
    };
    slot.tail = result.then(done, done);
    return result;
  }

  /** Evicts every actor idle for `idleMs` with an empty mailbox; returns how many. */
  sweep(): number {
    const now = this.#clock();
    let evicted = 0;
    for (const [key, slot] of this.#slots) {
      if (slot.pending === 0 && now - slot.idleSince >= this.#idleMs) {
        this.#slots.delete(key);
        evicted++;
      }
    }
    return evicted;
  }

  /** Drops the cached instance of (kind, id) so its next message reloads state from storage. */
  forget(kindName: string, id: string): void {
    const slot = this.#slots.get(`${kindName}\u0000${id}`);
    if (slot && slot.pending === 0) this.#slots.delete(`${kindName}\u0000${id}`);
    else if (slot) slot.actor = undefined;
  }

  /** Number of actors currently held (active or with messages queued). */
  get size(): number {
    return this.#slots.size;
  }

  /** Resolves once every mailbox is empty. */
  async drain(): Promise<void> {
    while ([...this.#slots.values()].some((slot) => slot.pending > 0)) {
      await Promise.all([...this.#slots.values()].map((slot) => slot.tail));
    }
  }

  #slotFor(key: string): Slot {
    let slot = this.#slots.get(key);
    if (!slot) {
      slot = { actor: undefined, tail: Promise.resolve(), pending: 0, idleSince: this.#clock() };
      this.#slots.set(key, slot);
    }
    return slot;
  }

  async #activated<M, R>(slot: Slot, kind: ActorKind<M, R>, id: string): Promise<Actor<M, R>> {
    slot.actor ??= kind.activate(id) as Promise<Actor<unknown, unknown>>;
    try {
      return await slot.actor as Actor<M, R>;
    } catch (error) {
      slot.actor = undefined;
      throw error;
    }
  }
}
