import type { EventRecord, StoredEvent } from "../event_record.ts";
import type { ChangeCursor, EventStore } from "../event_store.ts";
import { commitAtomic } from "./_atomic_retry.ts";

const EVENT = "event";
const CHANGED = "event_changed";
/** `["event_live_source", source, id]`: the live (not retired) events of each source. */
const LIVE_SOURCE = "event_live_source";
const COUNT = ["meta", "event_count"];
/** Set once every event written before the source index existed has been indexed. */
const SOURCE_INDEXED = ["meta", "event_live_source_indexed"];
/** Adding this to a KvU64 subtracts one (sums wrap modulo 2^64). */
const MINUS_ONE = (1n << 64n) - 1n;
/** Conditional retirements of one event before giving up (another writer kept winning). */
const MAX_ATTEMPTS = 10;

/** Where an event is stored (the assignment store reads it in a claim: the snapshot handed out). */
export function eventKey(id: string): Deno.KvKey {
  return [EVENT, id];
}

/**
 * Events in Deno KV. `["event", id]` holds the stored event; `["event_changed", updatedAtMs, id]`
 * holds a copy ordered for the change feed (KV reads up to 10 keys per getMany, so the feed
 * carries values instead of pointers); `["event_live_source", source, id]` lists the live events
 * of a source, for `retireSource`. All of an event's keys are written in one atomic commit.
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
      if (!previous || previous.retired) op.sum(COUNT, 1n).set([LIVE_SOURCE, event.source, event.id], true);
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

  async retireSource(source: string, nowMs: number): Promise<number> {
    await this.#indexOlderEvents();
    let retired = 0;
    for await (const entry of this.#kv.list<true>({ prefix: [LIVE_SOURCE, source] })) {
      if (await this.#retire(source, String(entry.key[2]), nowMs)) retired++;
    }
    return retired;
  }

  /**
   * Retires one event listed under `source`; true when it did. An index entry that no longer names
   * a live event of `source` (gone, retired already) is dropped instead.
   */
  async #retire(source: string, id: string, nowMs: number): Promise<boolean> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const current = await this.#kv.get<StoredEvent>([EVENT, id]);
      const previous = current.value;
      if (!previous || previous.retired || previous.event.source !== source) {
        const dropped = await commitAtomic(() =>
          this.#kv.atomic().check(current).delete([LIVE_SOURCE, source, id])
        );
        if (dropped.ok) return false;
        continue;
      }
      const stored: StoredEvent = {
        ...previous,
        version: previous.version + 1,
        updatedAtMs: nowMs,
        retired: true,
      };
      const result = await commitAtomic(() =>
        this.#kv.atomic().check(current)
          .delete([CHANGED, previous.updatedAtMs, id])
          .delete([LIVE_SOURCE, source, id])
          .sum(COUNT, MINUS_ONE)
          .set([EVENT, id], stored)
          .set([CHANGED, nowMs, id], stored)
      );
      if (result.ok) return true;
    }
    throw new Error(`Cannot retire event ${id}: it kept changing under concurrent writers`);
  }

  /** Indexes, once per store, the live events written before the source index existed. */
  async #indexOlderEvents(): Promise<void> {
    if ((await this.#kv.get(SOURCE_INDEXED)).value !== null) return;
    for await (const entry of this.#kv.list<StoredEvent>({ prefix: [EVENT] }, { batchSize: 500 })) {
      const { event, retired } = entry.value;
      if (!retired) await this.#kv.set([LIVE_SOURCE, event.source, event.id], true);
    }
    await this.#kv.set(SOURCE_INDEXED, true);
  }
}
