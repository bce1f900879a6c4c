import {
  fillsEmptyPoint,
  type ForecastHistoryStore,
  type ForecastPoint,
  hourOf,
  onePerHour,
  type PointRange,
} from "../forecast_history_store.ts";

/** Commits in flight at once while storing or purging points. */
const CONCURRENT_COMMITS = 16;
/** Points deleted per page of `purgeBefore`. */
const PURGE_PAGE = 500;
/** Reads and checked commits of one point before a write that keeps racing another gives up. */
const PUT_ATTEMPTS = 5;

/** A point, by event and hour. */
function pointKey(eventId: string, hourMs: number): Deno.KvKey {
  return ["fch", eventId, hourMs];
}

/** The same point by time taken (the purge walks it), holding its `pointKey`'s hour. */
function takenKey(atMs: number, eventId: string): Deno.KvKey {
  return ["fch_at", atMs, eventId];
}

/** Runs `task` over `items`, at most `CONCURRENT_COMMITS` at once; sums the answers. */
async function sumConcurrently<T>(items: readonly T[], task: (item: T) => Promise<number>): Promise<number> {
  let next = 0;
  let total = 0;
  const worker = async () => {
    while (next < items.length) {
      const done = await task(items[next++]!);
      total += done;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_COMMITS, items.length) }, worker));
  return total;
}

/**
 * The forecast history in Deno KV: each point at `["fch", eventId, hour]`, with a copy of its key
 * under `["fch_at", atMs, eventId]`. A point is written only when its key is absent or holds a
 * point without a forecast, checked against the versionstamp read.
 */
export class KvForecastHistoryStore implements ForecastHistoryStore {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  putPoints(points: readonly ForecastPoint[]): Promise<number> {
    return sumConcurrently(onePerHour(points), (point) => this.#put(point));
  }

  /**
   * Stores `point` when its hour has none, or one it replaces (`fillsEmptyPoint`); 1 when stored.
   * The first commit assumes the hour is free (the usual case: a run in a new hour); when it is
   * not, the held point is read and the commit checked against it, again while another write races
   * (after `PUT_ATTEMPTS` lost races the hour keeps what the other writes stored).
   */
  async #put(point: ForecastPoint): Promise<number> {
    const hourMs = hourOf(point.atMs);
    const key = pointKey(point.eventId, hourMs);
    let held: Deno.KvEntryMaybe<ForecastPoint> = { key, value: null, versionstamp: null };
    for (let attempt = 1; attempt <= PUT_ATTEMPTS; attempt++) {
      if (held.value !== null && !fillsEmptyPoint(held.value, point)) return 0;
      const write = this.#kv.atomic().check(held);
      if (held.value !== null && held.value.atMs !== point.atMs) {
        write.delete(takenKey(held.value.atMs, point.eventId));
      }
      const result = await write.set(key, point).set(takenKey(point.atMs, point.eventId), hourMs).commit();
      if (result.ok) return 1;
      held = await this.#kv.get<ForecastPoint>(key);
    }
    return 0;
  }

  async listPoints(eventId: string, { fromMs, toMs }: PointRange): Promise<ForecastPoint[]> {
    const out: ForecastPoint[] = [];
    const selector = { start: pointKey(eventId, hourOf(fromMs)), end: pointKey(eventId, hourOf(toMs) + 1) };
    for await (const entry of this.#kv.list<ForecastPoint>(selector, { batchSize: 500 })) {
      if (entry.value.atMs >= fromMs && entry.value.atMs <= toMs) out.push(entry.value);
    }
    return out;
  }

  /** Deletes in pages of `PURGE_PAGE` points, so a large backlog is never held in memory at once. */
  async purgeBefore(beforeMs: number): Promise<number> {
    const selector = { start: ["fch_at"], end: ["fch_at", beforeMs] };
    let purged = 0;
    for (;;) {
      const page: { atMs: number; eventId: string; hourMs: number }[] = [];
      for await (const entry of this.#kv.list<number>(selector, { limit: PURGE_PAGE })) {
        page.push({ atMs: entry.key[1] as number, eventId: entry.key[2] as string, hourMs: entry.value });
      }
      if (page.length === 0) return purged;
      purged += await sumConcurrently(page, async ({ atMs, eventId, hourMs }) => {
        await this.#kv.atomic().delete(pointKey(eventId, hourMs)).delete(takenKey(atMs, eventId)).commit();
        return 1;
      });
    }
  }
}
