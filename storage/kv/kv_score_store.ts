import { isDeepStrictEqual } from "node:util";
import type { Fence } from "../job_lease_store.ts";
import type {
  ListScoredEventsOptions,
  MinerRowsOf,
  ResolvedWindow,
  ScoredEventPosition,
  ScoredEventRecord,
  ScoredEventWrite,
  ScoredPredictionRecord,
  ScoreStore,
  ScoreTable,
  WindowPage,
  WindowRow,
} from "../score_store.ts";
import { commitFenced, type KvMutation } from "./_kv_fenced_batches.ts";
import { KvScoreTable } from "./_kv_score_table.ts";

/**
 * Key layout (ids sort by UTF-8 bytes, that is by code point, as in PostgreSQL's "C" collation):
 * - `["score", "event", eventId]` → the event record
 * - `["score", "event_by_time", -resolvedAtMs, eventId]` → the same record, newest first
 * - `["score", "event_by_resolution", resolvedAtMs, eventId]` → null: the events in the order of
 *   a miner's sums (the score table's window)
 * - `["score", "prediction", eventId, agentPredictionId]` → a prediction row
 * - `["score", "hotkey_event", hotkey, -resolvedAtMs, eventId, uid]` → a counted row again (a
 *   miner's events and window; one counted row per (event, hotkey, uid))
 */
const keys = {
  event: (eventId: string): Deno.KvKey => ["score", "event", eventId],
  byTime: (e: ScoredEventRecord): Deno.KvKey => ["score", "event_by_time", -e.resolvedAtMs, e.eventId],
  byResolution: (
    e: ScoredEventRecord,
  ): Deno.KvKey => ["score", "event_by_resolution", e.resolvedAtMs, e.eventId],
  prediction: (
    p: ScoredPredictionRecord,
  ): Deno.KvKey => ["score", "prediction", p.eventId, p.agentPredictionId],
  hotkeyEvent: (p: ScoredPredictionRecord): Deno.KvKey => [
    "score",
    "hotkey_event",
    p.minerHotkey,
    -p.resolvedAtMs,
    p.eventId,
    p.minerUid,
  ],
};

/** Larger than any uid (u16): a start key after every uid of one (time, event). */
const AFTER_ANY_UID = 65_536;
/** After every string in Deno KV's key order (a boolean sorts after strings): past every event id. */
const AFTER_ANY_ID = true;
/** Records read per `getMany` (Deno KV's limit). */
const GET_MANY = 10;

/** The scoring job's results in Deno KV. */
export class KvScoreStore implements ScoreStore {
  readonly #kv: Deno.Kv;
  readonly #table: KvScoreTable;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
    this.#table = new KvScoreTable(kv);
  }

  /**
   * Each event's changes (its rows, then its record) in order, in fenced commits of bounded size
   * (`commitFenced`): a crash between commits leaves some events or rows written, never an
   * event record ahead of its rows; the next run writes the rest.
   */
  async putEventsFenced(events: readonly ScoredEventWrite[], options: { fence: Fence }): Promise<boolean> {
    const mutations: KvMutation[] = [];
    for (const { event, predictions } of events) {
      const before = await this.getEvent(event.eventId);
      mutations.push(...predictionMutations(await this.eventPredictions(event.eventId), predictions));
      if (before !== null && before.resolvedAtMs !== event.resolvedAtMs) {
        mutations.push({ key: keys.byTime(before) }, { key: keys.byResolution(before) });
      }
      if (!isDeepStrictEqual(before, event)) {
        mutations.push(
          { key: keys.byTime(event), value: event },
          { key: keys.byResolution(event), value: null },
          { key: keys.event(event.eventId), value: event },
        );
      }
    }
    return await commitFenced(this.#kv, options.fence, mutations);
  }

  async getEvent(eventId: string): Promise<ScoredEventRecord | null> {
    return (await this.#kv.get<ScoredEventRecord>(keys.event(eventId))).value;
  }

  getEvents(eventIds: readonly string[]): Promise<ScoredEventRecord[]> {
    return this.#events([...new Set(eventIds)]);
  }

  async predictionsOfEvents(eventIds: readonly string[]): Promise<ScoredPredictionRecord[]> {
    const sorted = [...new Set(eventIds)].sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
    return (await Promise.all(sorted.map((eventId) => this.eventPredictions(eventId)))).flat();
  }

  async eventPredictions(
    eventId: string,
    options: { countedOnly?: boolean } = {},
  ): Promise<ScoredPredictionRecord[]> {
    const rows: ScoredPredictionRecord[] = [];
    const prefix = ["score", "prediction", eventId];
    for await (const entry of this.#kv.list<ScoredPredictionRecord>({ prefix }, { batchSize: 500 })) {
      if (!options.countedOnly || entry.value.counted) rows.push(entry.value);
    }
    return rows;
  }

  async listEvents(options: ListScoredEventsOptions): Promise<ScoredEventRecord[]> {
    if (options.miner !== undefined) return await this.#listMinerEvents(options, options.miner);
    const prefix = ["score", "event_by_time"];
    const { after } = options;
    const selector = after === undefined
      ? { prefix }
      : { prefix, start: [...prefix, -after.resolvedAtMs, `${after.eventId}\u0000`] };
    const events: ScoredEventRecord[] = [];
    for await (const entry of this.#kv.list<ScoredEventRecord>(selector, { limit: options.limit })) {
      events.push(entry.value);
    }
    return events;
  }

  async windowRows(page: WindowPage): Promise<{ rows: WindowRow[]; next: ScoredEventPosition | null }> {
    const prefix = ["score", "event_by_resolution"];
    const { after } = page;
    const start = after === undefined
      ? [...prefix, page.resolvedAfterMs, AFTER_ANY_ID]
      : [...prefix, after.resolvedAtMs, `${after.eventId}\u0000`];
    const end = [...prefix, page.resolvedUntilMs, AFTER_ANY_ID];
    const events: ScoredEventPosition[] = [];
    for await (const { key } of this.#kv.list({ start, end }, { limit: page.events })) {
      events.push({ resolvedAtMs: key[2] as number, eventId: key[3] as string });
    }
    const rows: WindowRow[] = [];
    for (const event of events) {
      for (const row of await this.eventPredictions(event.eventId, { countedOnly: true })) {
        const { eventId, minerHotkey, minerUid, brier, marketBrier, called, pPredicted, stakeReturn } = row;
        rows.push({
          eventId,
          minerHotkey,
          minerUid,
          resolvedAtMs: event.resolvedAtMs,
          brier,
          marketBrier,
          called,
          pPredicted,
          stakeReturn,
        });
      }
    }
    return { rows, next: events.length === page.events ? events.at(-1)! : null };
  }

  /** One range of the miner's index entries (each holds its counted row), newest first. */
  async minerRows(miner: MinerRowsOf, window: ResolvedWindow): Promise<ScoredPredictionRecord[]> {
    const prefix = ["score", "hotkey_event", miner.hotkey];
    const selector = {
      start: [...prefix, -window.resolvedUntilMs],
      end: [...prefix, -window.resolvedAfterMs],
    };
    const rows: ScoredPredictionRecord[] = [];
    for await (const entry of this.#kv.list<ScoredPredictionRecord>(selector, { batchSize: 500 })) {
      if (miner.uid === undefined || entry.value.minerUid === miner.uid) rows.push(entry.value);
    }
    return rows;
  }

  putTableFenced(table: ScoreTable, options: { fence: Fence }): Promise<boolean> {
    return this.#table.put(table, options.fence);
  }

  getTable(): Promise<ScoreTable | null> {
    return this.#table.get();
  }

  /** Events with a counted row of `miner.hotkey` (under `miner.uid` when given), newest first. */
  async #listMinerEvents(
    options: ListScoredEventsOptions,
    miner: { hotkey: string; uid?: number },
  ): Promise<ScoredEventRecord[]> {
    const prefix = ["score", "hotkey_event", miner.hotkey];
    const { after } = options;
    const selector = after === undefined
      ? { prefix }
      : { prefix, start: [...prefix, -after.resolvedAtMs, after.eventId, AFTER_ANY_UID] };
    const eventIds: string[] = [];
    for await (const { key } of this.#kv.list(selector, { batchSize: 200 })) {
      const eventId = key[4] as string;
      if (miner.uid !== undefined && key[5] !== miner.uid) continue;
      if (eventIds.at(-1) === eventId) continue;
      eventIds.push(eventId);
      if (eventIds.length === options.limit) break;
    }
    return await this.#events(eventIds);
  }

  async #events(eventIds: readonly string[]): Promise<ScoredEventRecord[]> {
    const events: ScoredEventRecord[] = [];
    for (let at = 0; at < eventIds.length; at += GET_MANY) {
      const batch = eventIds.slice(at, at + GET_MANY).map(keys.event);
      for (const entry of await this.#kv.getMany<ScoredEventRecord[]>(batch)) {
        if (entry.value !== null) events.push(entry.value);
      }
    }
    return events;
  }
}

/** Every entry a row keeps, by serialised key. */
function entriesOf(row: ScoredPredictionRecord): [string, KvMutation][] {
  const entries: KvMutation[] = [{ key: keys.prediction(row), value: row }];
  if (row.counted) entries.push({ key: keys.hotkeyEvent(row), value: row });
  return entries.map((entry) => [JSON.stringify(entry.key), entry]);
}

/**
 * What turns the stored rows of an event into `next`: new and changed entries written, entries
 * no row keeps any more deleted; unchanged entries are left alone (a re-run writes nothing).
 */
function predictionMutations(
  stored: readonly ScoredPredictionRecord[],
  next: readonly ScoredPredictionRecord[],
): KvMutation[] {
  const before = new Map(stored.flatMap(entriesOf));
  const after = new Map(next.flatMap(entriesOf));
  const mutations: KvMutation[] = [];
  for (const [id, entry] of before) if (!after.has(id)) mutations.push({ key: entry.key });
  for (const [id, entry] of after) {
    const previous = before.get(id);
    if (previous === undefined || !isDeepStrictEqual(previous.value, entry.value)) mutations.push(entry);
  }
  return mutations;
}
