/**
 * Pages of `GET /v1/events/scored` (docs/scoring.md, "GET /v1/events/scored"): scored events, newest
 * resolution first, each with its stats and its miners' counted rows (best Brier first, invalid last).
 */
import { isoAt } from "../kernel/mod.ts";
import type {
  ScoredEventPosition,
  ScoredEventRecord,
  ScoredEventStats,
  ScoredPredictionRecord,
  ScoreStore,
} from "../../storage/score_store.ts";
import type { BillingStore, LeaseUsage } from "../../storage/billing_store.ts";
import { compareShownRows } from "./event_stats.ts";

/** A miner's result on a scored event; invalid predictions carry null scored values. */
export interface MinerResultItem {
  uid: number;
  hotkey: string;
  pWin: number | null;
  brier: number | null;
  called: boolean | null;
  invalid: boolean;
  predictedAt: string;
  /** The charged LLM calls of the prediction's lease, from the usage records when read. */
  llmCalls: number;
  /** Σ their costs, micro-credits as a decimal string. */
  llmCostMicro: string;
}

export interface ScoredEventItem {
  eventId: string;
  source: string;
  sourceMarketId: string;
  question: string;
  resolvedAt: string;
  scoredAt: string;
  winningOutcome: { outcomeId: string; name: string };
  marketPWinAtAdmission: number;
  stats: ScoredEventStats;
  miners: MinerResultItem[];
}

/** Whose events: a hotkey (any uid), or a (hotkey, uid) registration. */
export interface MinerFilter {
  hotkey: string;
  uid?: number;
}

export interface ScoredEventsPageOptions {
  /** Events per page. */
  limit: number;
  /** Miner rows per event (0: none but the filtered miner's). */
  miners: number;
  /** Only events this miner has a counted row on; its rows are always shown. */
  miner?: MinerFilter;
  after?: ScoredEventPosition;
}

export interface ScoredEventsPage {
  items: ScoredEventItem[];
  /** Where the next page starts, or null after the last. */
  next: ScoredEventPosition | null;
}

function isMiner(row: ScoredPredictionRecord, miner: MinerFilter | undefined): boolean {
  return miner !== undefined && row.minerHotkey === miner.hotkey &&
    (miner.uid === undefined || row.minerUid === miner.uid);
}

function resultOf(row: ScoredPredictionRecord, usage?: LeaseUsage): MinerResultItem {
  const invalid = row.reasons.length > 0;
  return {
    uid: row.minerUid,
    hotkey: row.minerHotkey,
    pWin: invalid ? null : row.pWin,
    brier: invalid ? null : row.brier,
    called: invalid ? null : row.called,
    invalid,
    predictedAt: isoAt(row.predictedAtMs),
    llmCalls: usage?.calls ?? 0,
    llmCostMicro: String(usage?.costMicro ?? 0n),
  };
}

/** The first `count` rows in shown order, plus the filtered miner's rows wherever they fall. */
function shownRows(
  rows: readonly ScoredPredictionRecord[],
  count: number,
  miner: MinerFilter | undefined,
): ScoredPredictionRecord[] {
  const ordered = rows.map((row) => ({ item: resultOf(row), row }))
    .sort((a, b) => compareShownRows(a.item, b.item));
  return ordered.filter(({ row }, index) => index < count || isMiner(row, miner)).map(({ row }) => row);
}

function itemOf(event: ScoredEventRecord, miners: MinerResultItem[]): ScoredEventItem {
  const winner = event.outcomes.find((outcome) => outcome.outcomeId === event.winningOutcomeId);
  return {
    eventId: event.eventId,
    source: event.source,
    sourceMarketId: event.sourceMarketId,
    question: event.question,
    resolvedAt: isoAt(event.resolvedAtMs),
    scoredAt: isoAt(event.scoredAtMs),
    winningOutcome: { outcomeId: event.winningOutcomeId, name: winner?.name ?? "" },
    marketPWinAtAdmission: event.marketPWinAtAdmission,
    stats: event.stats,
    miners,
  };
}

/** What a page of scored events reads. */
export interface ScoredEventsDeps {
  scores: Pick<ScoreStore, "listEvents" | "eventPredictions">;
  /** The usage records: the shown rows' LLM calls, one read per page. */
  billing: Pick<BillingStore, "leaseUsage">;
}

/** One page of scored events with their miner rows. */
export async function scoredEventsPage(
  deps: ScoredEventsDeps,
  options: ScoredEventsPageOptions,
): Promise<ScoredEventsPage> {
  const { scores } = deps;
  const events = await scores.listEvents({
    limit: options.limit + 1,
    ...(options.after ? { after: options.after } : {}),
    ...(options.miner ? { miner: options.miner } : {}),
  });
  const page = events.slice(0, options.limit);
  const wantsRows = options.miners > 0 || options.miner !== undefined;
  const shown = await Promise.all(page.map(async (event) => {
    const rows = wantsRows ? await scores.eventPredictions(event.eventId, { countedOnly: true }) : [];
    return { event, rows: shownRows(rows, options.miners, options.miner) };
  }));
  const usage = await deps.billing.leaseUsage(
    shown.flatMap(({ rows }) => rows.map((row) => row.agentPredictionId)),
  );
  const items = shown.map(({ event, rows }) =>
    itemOf(event, rows.map((row) => resultOf(row, usage.get(row.agentPredictionId))))
  );
  const last = page.at(-1);
  const next = events.length > options.limit && last
    ? { resolvedAtMs: last.resolvedAtMs, eventId: last.eventId }
    : null;
  return { items, next };
}

/** What one scored event with all its rows reads. */
export interface ScoredEventDeps {
  scores: Pick<ScoreStore, "getEvent" | "eventPredictions">;
  billing: Pick<BillingStore, "leaseUsage">;
}

/**
 * One scored event with every counted row (best Brier first, invalid last), as a page of
 * `scoredEventsPage` shows it; null while the event is not scored.
 */
export async function scoredEvent(deps: ScoredEventDeps, eventId: string): Promise<ScoredEventItem | null> {
  const event = await deps.scores.getEvent(eventId);
  if (!event) return null;
  const rows = await deps.scores.eventPredictions(eventId, { countedOnly: true });
  const shown = shownRows(rows, rows.length, undefined);
  const usage = await deps.billing.leaseUsage(shown.map((row) => row.agentPredictionId));
  return itemOf(event, shown.map((row) => resultOf(row, usage.get(row.agentPredictionId))));
}
