/**
 * How a mailbox hands messages to its actor: activation on the first message, `receive`, and
 * `receiveBatch` (or one `receive` after another for an actor without it); and the eviction and
 * draining of a system's mailboxes. Private to actors/runtime.
 */
import type { Actor, BatchOutcome, MessageMap } from "./actor_kind.ts";
import type { Registration, Slot } from "./_mailbox.ts";

/** The actor of (kind, id), activated on its first message (a failed activation is tried again next time). */
async function activeActor(registration: Registration, id: string, slot: Slot): Promise<Actor<MessageMap>> {
  try {
    slot.actor ??= registration.kind.activate(id);
    return await slot.actor;
  } catch (error) {
    slot.actor = undefined;
    throw error;
  }
}

/** The actor's `receive` of one message. */
export async function receiveOne(
  registration: Registration,
  id: string,
  slot: Slot,
  message: unknown,
): Promise<unknown> {
  return await (await activeActor(registration, id, slot)).receive(message);
}

/** The actor's `receiveBatch`, or (for an actor without one) its `receive` of each in turn. */
export async function receiveMany(
  registration: Registration,
  id: string,
  slot: Slot,
  messages: unknown[],
): Promise<BatchOutcome<unknown>[]> {
  const actor = await activeActor(registration, id, slot);
  if (actor.receiveBatch) return await actor.receiveBatch(messages);
  const outcomes: BatchOutcome<unknown>[] = [];
  for (const message of messages) {
    try {
      outcomes.push({ reply: await actor.receive(message) });
    } catch (error) {
      outcomes.push({ error });
    }
  }
  return outcomes;
}

/** Evicts the actors of `registrations` idle since `idleBefore` or earlier with an empty mailbox; how many. */
export function evictIdle(registrations: Iterable<Registration>, idleBefore: number): number {
  let evicted = 0;
  for (const { slots } of registrations) {
    for (const [id, slot] of slots) {
      if (!slot.pumping && slot.idleSince <= idleBefore) {
        slots.delete(id);
        evicted++;
      }
    }
  }
  return evicted;
}

/** Resolves once no mailbox of `registrations()` is running (looked at again after each wait). */
export async function drainAll(registrations: () => Iterable<Registration>): Promise<void> {
  for (;;) {
    const busy = [...registrations()].flatMap(({ slots }) => [...slots.values()]).filter((slot) =>
      slot.pumping
    );
    if (busy.length === 0) return;
    await Promise.all(busy.map((slot) => new Promise<void>((resolve) => slot.waiters.push(resolve))));
  }
}
