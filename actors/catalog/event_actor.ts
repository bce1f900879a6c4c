import { type Actor, type ActorKind, conditionalWrite, LOST, type Lost } from "../runtime/mod.ts";
import type { SourceMarket } from "./sources/market_source.ts";
import {
  admissionRefusal,
  type AdmissionRules,
  admitMarket,
  contradictedSettlement,
  type Settlement,
  updateFromMarket,
} from "./market_admission.ts";
import { sanitizeMarket } from "./market_sanitize.ts";
import type { EventStore } from "../../storage/event_store.ts";
import type { EventRecord, StoredEvent } from "../../storage/event_record.ts";
import type { Clock } from "../kernel/mod.ts";

export interface ObserveReply {
  /** "admitted", "updated", "unchanged", or "refused" (not admitted, with the reason). */
  outcome: "admitted" | "updated" | "unchanged" | "refused";
  reason?: string;
  /** The source reported a settlement other than the event's (which is final and kept). */
  contradiction?: { kept: Settlement; reported: Settlement };
}

/** The messages an EventActor understands, each with its reply. */
export type EventMessages = {
  /** A sighting of the market at its source: admits, updates or leaves the event. */
  observe: { message: { type: "observe"; market: SourceMarket }; reply: ObserveReply };
  /** The event as stored, or null. */
  get: { message: { type: "get" }; reply: EventRecord | null };
};

export type EventMessage = EventMessages[keyof EventMessages]["message"];
export type EventReply = EventMessages[keyof EventMessages]["reply"];

export interface EventActorDeps {
  store: EventStore;
  rules: AdmissionRules;
  clock: Clock;
}

/**
 * The owner of one market event: admits it, applies each sighting, and writes through. Its
 * mailbox makes it the event's only writer on this instance; it reads the event from storage at
 * every message (another instance may have written since) and keeps nothing in between, so
 * holding tens of thousands of these actors costs next to no memory.
 */
export class EventActor implements Actor<EventMessages> {
  readonly #id: string;
  readonly #deps: EventActorDeps;

  constructor(id: string, deps: EventActorDeps) {
    this.#id = id;
    this.#deps = deps;
  }

  async receive(message: EventMessage): Promise<EventReply> {
    if (message.type === "get") return liveEvent(await this.#deps.store.get(this.#id));
    return await this.#observe(message.market);
  }

  async #observe(source: SourceMarket): Promise<ObserveReply> {
    const market = sanitizeMarket(source);
    if (typeof market === "string") return { outcome: "refused", reason: market };
    // Storage is the truth: another instance may have written since this actor last looked.
    return await conditionalWrite({
      what: `write event ${this.#id}`,
      load: () => this.#deps.store.get(this.#id),
      apply: (current) => this.#apply(market, current),
    });
  }

  /** One conditional write of the market's effect on `current`; LOST when the condition was lost. */
  async #apply(market: SourceMarket, current: StoredEvent | null): Promise<ObserveReply | Lost> {
    const now = this.#deps.clock();
    // A retired event is admitted afresh, as if it had never been seen (its version goes on).
    const live = liveEvent(current);
    if (live) {
      const contradiction = contradictionOf(live, market);
      const next = updateFromMarket(live, market, now, this.#deps.rules);
      if (!next) return { outcome: "unchanged", ...contradiction };
      const written = await this.#deps.store.put(next, current!.version, now);
      return written ? { outcome: "updated", ...contradiction } : LOST;
    }
    const reason = admissionRefusal(market, now, this.#deps.rules);
    if (reason) return { outcome: "refused", reason };
    const written = await this.#deps.store.put(admitMarket(market, now), current?.version ?? 0, now);
    return written ? { outcome: "admitted" } : LOST;
  }
}

/** The event of `stored` unless it is retired (or absent). */
function liveEvent(stored: StoredEvent | null): EventRecord | null {
  return stored && !stored.retired ? stored.event : null;
}

function contradictionOf(event: EventRecord, market: SourceMarket): Pick<ObserveReply, "contradiction"> {
  const reported = contradictedSettlement(event, market);
  if (reported === null) return {};
  const kept = {
    status: event.resolution.resolutionStatus,
    winningOutcomeId: event.resolution.winningOutcomeId,
  };
  return { contradiction: { kept, reported } };
}

/** The EventActor kind: activation is free; each message reads the event from storage. */
export function eventActorKind(deps: EventActorDeps): ActorKind<EventMessages> {
  return {
    name: "event",
    activate: (id) => Promise.resolve(new EventActor(id, deps)),
  };
}
