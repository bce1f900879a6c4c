import {
  type ForecastHistoryStore,
  type ForecastPoint,
  hourOf,
  type PointRange,
} from "../forecast_history_store.ts";

/** Commits in flight at once while storing or purging points. */
const CONCURRENT_COMMITS = 16;

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
 * The forecast history in Deno KV: each point at `["fch", eventId, hour]`, written only when that
 * key is absent (a versionstamp check), with a copy of its key under `["fch_at", atMs, eventId]`.
 */
/** Points deleted per page of `purgeBefore`. */
const PURGE_PAGE = 500;

export class KvForecastHistoryStore implements ForecastHistoryStore {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  putPoints(points: readonly ForecastPoint[]): Promise<number> {
    return sumConcurrently(points, async (point) => {
      const key = pointKey(point.eventId, hourOf(point.atMs));
      const result = await this.#kv.atomic().check({ key, versionstamp: null })
        .set(key, point).set(takenKey(point.atMs, point.eventId), hourOf(point.atMs)).commit();
      return result.ok ? 1 : 0;
    });
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
