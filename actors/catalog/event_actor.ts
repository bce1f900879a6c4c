import type { Actor, ActorKind } from "../runtime/mod.ts";
import type { SourceMarket } from "./sources/market_source.ts";
import { admissionRefusal, type AdmissionRules, admitMarket, updateFromMarket } from "./market_admission.ts";
import { sanitizeMarket } from "./market_sanitize.ts";
import type { EventStore } from "../../storage/event_store.ts";
import type { EventRecord, StoredEvent } from "../../storage/event_record.ts";
import type { Clock } from "../kernel/mod.ts";

export type EventMessage =
  | { type: "observe"; market: SourceMarket }
  | { type: "get" };

export interface ObserveReply {
  /** "admitted", "updated", "unchanged", or "refused" (not admitted, with the reason). */
  outcome: "admitted" | "updated" | "unchanged" | "refused";
  reason?: string;
}

export type EventReply = ObserveReply | EventRecord | null;

export interface EventActorDeps {
  store: EventStore;
  rules: AdmissionRules;
  clock: Clock;
}

const MAX_ATTEMPTS = 5;

/**
 * The owner of one market event: admits it, applies each sighting, and writes through. Its
 * mailbox makes it the event's only writer on this instance; it reads the event from storage at
 * every message (another instance may have written since) and keeps nothing in between, so
 * holding tens of thousands of these actors costs next to no memory.
 */
export class EventActor implements Actor<EventMessage, EventReply> {
  readonly #id: string;
  readonly #deps: EventActorDeps;
  #state: StoredEvent | null = null;

  constructor(id: string, deps: EventActorDeps) {
    this.#id = id;
    this.#deps = deps;
  }

  async receive(message: EventMessage): Promise<EventReply> {
    try {
      if (message.type === "get") return liveEvent(await this.#deps.store.get(this.#id));
      return await this.#observe(message.market);
    } finally {
      this.#state = null;
    }
  }

  async #observe(source: SourceMarket): Promise<ObserveReply> {
    const market = sanitizeMarket(source);
    if (typeof market === "string") return { outcome: "refused", reason: market };
    // Storage is the truth: another instance may have written since this actor last looked.
    this.#state = await this.#deps.store.get(this.#id);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const reply = await this.#apply(market);
      if (reply) return reply;
      this.#state = await this.#deps.store.get(this.#id);
    }
    throw new Error(`Cannot write event: ${this.#id} kept changing under concurrent writers`);
  }

  /** One conditional write of the market's effect; null when the condition was lost. */
  async #apply(market: SourceMarket): Promise<ObserveReply | null> {
    const now = this.#deps.clock();
    const current = this.#state;
    // A retired event is admitted afresh, as if it had never been seen (its version goes on).
    const live = liveEvent(current);
    let next: EventRecord | null;
    if (live) {
      next = updateFromMarket(live, market, now, this.#deps.rules);
      if (!next) return { outcome: "unchanged" };
    } else {
      const reason = admissionRefusal(market, now, this.#deps.rules);
      if (reason) return { outcome: "refused", reason };
      next = admitMarket(market, now);
    }
    const written = await this.#deps.store.put(next, current?.version ?? 0, now);
    if (!written) return null;
    this.#state = written;
    return { outcome: live ? "updated" : "admitted" };
  }
}

/** The event of `stored` unless it is retired (or absent). */
function liveEvent(stored: StoredEvent | null): EventRecord | null {
  return stored && !stored.retired ? stored.event : null;
}

/** The EventActor kind: activation is free; each message reads the event from storage. */
export function eventActorKind(deps: EventActorDeps): ActorKind<EventMessage, EventReply> {
  return {
    name: "event",
    activate: (id) => Promise.resolve(new EventActor(id, deps)),
  };
}
