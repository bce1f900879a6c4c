/**
 * The scoring job's second step: the per-miner score table over the window ending at the run's
 * `computedAt`, for the current (hotkey, uid) registrations of the metagraph.
 */
import type { MetagraphStore } from "../../storage/metagraph_store.ts";
import type { ScoredEventRecord, ScoreStore, ScoreTable, ScoreTableRow } from "../../storage/score_store.ts";
import { scoreTableRow } from "./stored_scoring.ts";

const DAY_MS = 86_400_000;
const EVENT_PAGE = 1_000;
/** Miners whose rows are read at once (one's query overlaps another's scoring). */
const MINER_CONCURRENCY = 3;

export interface TablePassDeps {
  scores: ScoreStore;
  metagraph: MetagraphStore;
  netuid: number;
  windowDays: number;
}

/** Scored events resolved in (`startMs`, `endMs`], by id. */
async function windowEvents(scores: ScoreStore, startMs: number, endMs: number) {
  const events = new Map<string, ScoredEventRecord>();
  let after: { resolvedAtMs: number; eventId: string } | undefined;
  for (;;) {
    const page = await scores.listEvents({ limit: EVENT_PAGE, ...(after ? { after } : {}) });
    for (const event of page) {
      if (event.resolvedAtMs <= startMs) return events;
      if (event.resolvedAtMs <= endMs) events.set(event.eventId, event);
    }
    const last = page.at(-1);
    if (page.length < EVENT_PAGE || last === undefined) return events;
    after = { resolvedAtMs: last.resolvedAtMs, eventId: last.eventId };
  }
}

/** One registration's row: its counted rows in the window, with the events they belong to. */
async function minerRow(
  deps: TablePassDeps,
  neuron: { hotkey: string; uid: number; firstSeenAtMs: number },
  window: { events: Map<string, ScoredEventRecord>; startMs: number; computedAtMs: number },
): Promise<ScoreTableRow> {
  const { hotkey, uid, firstSeenAtMs } = neuron;
  const { events, startMs, computedAtMs } = window;
  const minerRows = await deps.scores.minerRows({
    hotkey,
    uid,
    resolvedAfterMs: startMs,
    resolvedUntilMs: computedAtMs,
  });
  for (const row of minerRows) {
    // An event scored after the window's events were listed.
    if (events.has(row.eventId)) continue;
    const event = await deps.scores.getEvent(row.eventId);
    if (event !== null) events.set(event.eventId, event);
  }
  return scoreTableRow({ hotkey, uid, firstSeenAtMs }, minerRows, { events, computedAtMs });
}

/**
 * The score table at `computedAtMs`: one row per neuron of the subnet's latest metagraph (none
 * before its first sync), each from that (hotkey, uid)'s counted rows on events resolved in
 * (`computedAt − windowDays`, `computedAt`].
 */
export async function computeScoreTable(deps: TablePassDeps, computedAtMs: number): Promise<ScoreTable> {
  const metagraph = await deps.metagraph.latest(deps.netuid);
  const startMs = computedAtMs - deps.windowDays * DAY_MS;
  const events = await windowEvents(deps.scores, startMs, computedAtMs);
  const neurons = metagraph?.neurons ?? [];
  const rows: ScoreTableRow[] = [];
  let taken = 0;
  const worker = async () => {
    while (taken < neurons.length) {
      rows.push(await minerRow(deps, neurons[taken++]!, { events, startMs, computedAtMs }));
    }
  };
  await Promise.all(Array.from({ length: MINER_CONCURRENCY }, worker));
  rows.sort((a, b) => a.uid - b.uid);
  return { computedAtMs, windowDays: deps.windowDays, rows };
}
