import type { EventRecord, StoredEvent } from "../event_record.ts";
import type { ChangeCursor, EventStore } from "../event_store.ts";
import { commitAtomic } from "./_atomic_retry.ts";

const EVENT = "event";
const CHANGED = "event_changed";
const COUNT = ["meta", "event_count"];

/**
 * Events in Deno KV. `["event", id]` holds the stored event; `["event_changed", updatedAtMs, id]`
 * holds a copy ordered for the change feed (KV reads up to 10 keys per getMany, so the feed
 * carries values instead of pointers). Both are written in one atomic commit.
 */
export class KvEventStore implements EventStore {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async get(id: string): Promise<StoredEvent | null> {
    return (await this.#kv.get<StoredEvent>([EVENT, id])).value;
  }

  async put(event: EventRecord, expectedVersion: number, nowMs: number): Promise<StoredEvent | null> {
    const current = await this.#kv.get<StoredEvent>([EVENT, event.id]);
    if ((current.value?.version ?? 0) !== expectedVersion) return null;
    const stored: StoredEvent = { event, version: expectedVersion + 1, updatedAtMs: nowMs };
    const previous = current.value;
    const result = await commitAtomic(() => {
      const op = this.#kv.atomic().check(current);
      // Delete the old feed entry before setting the new one: at the same millisecond they are one key.
      if (previous) op.delete([CHANGED, previous.updatedAtMs, event.id]);
      else op.sum(COUNT, 1n);
      return op.set([EVENT, event.id], stored).set([CHANGED, nowMs, event.id], stored);
    });
    return result.ok ? stored : null;
  }

  async listChanged(after: ChangeCursor | null, limit: number): Promise<StoredEvent[]> {
    const selector = after
      ? { start: [CHANGED, after.updatedAtMs, after.id, 0], end: [CHANGED, Infinity] }
      : { prefix: [CHANGED] };
    const out: StoredEvent[] = [];
    for await (const entry of this.#kv.list<StoredEvent>(selector, { limit, batchSize: 500 })) {
      out.push(entry.value);
    }
    return out;
  }

  async count(): Promise<number> {
    const entry = await this.#kv.get<Deno.KvU64>(COUNT);
    return Number(entry.value?.value ?? 0n);
  }
}
