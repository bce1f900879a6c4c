/**
 * The world of `bench:scoring`: 20,000 resolved binary events, 256 miners, 50 miners per event
 * (1,000,000 predictions, about 3,900 per miner), 1 % flagged invalid by their agent. The same
 * world as a scorer input (the pure scorer) and as PostgreSQL rows (the scoring job), seeded with
 * set-based SQL.
 */
import type postgres from "postgres";
import { DAY_MS, HOUR_MS, isoAt } from "../../../actors/kernel/mod.ts";
import type { ScorerEvent, ScorerPrediction } from "../../../actors/scoring/mod.ts";
import type { EventRecord } from "../../../storage/event_record.ts";

export interface WorldSize {
  events: number;
  miners: number;
  perEvent: number;
}

export function eventId(e: number): string {
  return `bench-${String(e).padStart(6, "0")}`;
}

/** Resolved 1 h .. 28 days before `nowMs`, ending 2 h after its resolution (an early one). */
function resolvedAtMs(e: number, nowMs: number): number {
  return nowMs - HOUR_MS - (e * 7_919 % (28 * 24)) * HOUR_MS;
}

function admission(e: number): [number, number] {
  const yes = 0.2 + (e * 37 % 60) / 100;
  return [yes, Math.round((1 - yes) * 100) / 100];
}

export function scorerEvent(e: number, nowMs: number): ScorerEvent {
  const id = eventId(e);
  const resolvedAt = resolvedAtMs(e, nowMs);
  const [yes, no] = admission(e);
  return {
    id,
    outcomes: [{ outcomeId: `${id}-yes`, name: "Yes" }, { outcomeId: `${id}-no`, name: "No" }],
    endDate: isoAt(resolvedAt + 2 * HOUR_MS),
    outcomePricesAtAdmission: { [`${id}-yes`]: yes, [`${id}-no`]: no },
    resolution: {
      resolutionStatus: "resolved",
      winningOutcomeId: `${id}-${e % 3 === 0 ? "no" : "yes"}`,
      resolvedAt: isoAt(resolvedAt),
    },
  };
}

/** The catalog record of event `e` (what the events table holds). */
export function eventRecord(e: number, nowMs: number): EventRecord {
  const event = scorerEvent(e, nowMs);
  const at = isoAt(resolvedAtMs(e, nowMs) - 3 * DAY_MS);
  const winner = event.resolution.winningOutcomeId!;
  const final = Object.fromEntries(event.outcomes.map((o) => [o.outcomeId, o.outcomeId === winner ? 1 : 0]));
  return {
    id: event.id,
    source: "bench",
    sourceMarketId: event.id,
    question: `Will benchmark event ${e} happen?`,
    description: "A benchmark event.",
    outcomes: event.outcomes,
    endDate: event.endDate,
    startDate: at,
    tagsAtAdmission: [],
    liquidityUsd: 10_000,
    volumeUsd: 10_000,
    volumeRecentUsd: 1_000,
    currentLiquidityUsd: 10_000,
    currentVolumeUsd: 10_000,
    currentOutcomePrices: final,
    admittedAt: at,
    lastSeenAt: event.resolution.resolvedAt!,
    resolution: {
      resolutionStatus: "resolved",
      winningOutcomeId: winner,
      winningOutcomeName: winner.endsWith("yes") ? "Yes" : "No",
      resolvedAt: event.resolution.resolvedAt,
      finalOutcomePrices: final,
    },
    outcomePricesAtAdmission: event.outcomePricesAtAdmission,
  };
}

/** Miner uid of the `k`-th prediction on event `e`. */
function uidOf(e: number, k: number, size: WorldSize): number {
  return (e * size.perEvent + k) % size.miners;
}

/** p(yes) of the `k`-th prediction on event `e` (SQL below computes the same). */
function pYes(e: number, k: number): number {
  return (5 + (e * 7 + k * 13) % 90) / 100;
}

/** Predictions are made 1..24 hours before the event's resolution. */
function predictedAtMs(e: number, k: number, nowMs: number): number {
  return resolvedAtMs(e, nowMs) - (1 + (e + k) % 24) * HOUR_MS;
}

/** The `perEvent` predictions of event `e` (as the database seeding below makes them). */
export function scorerPredictions(
  e: number,
  event: ScorerEvent,
  size: WorldSize,
  hotkeys: readonly string[],
  nowMs: number,
): ScorerPrediction[] {
  const [yes, no] = event.outcomes.map((o) => o.outcomeId) as [string, string];
  return Array.from({ length: size.perEvent }, (_, k) => {
    const uid = uidOf(e, k, size);
    const p = pYes(e, k);
    return {
      agentPredictionId: `ap-${event.id}-${String(k).padStart(2, "0")}`,
      eventId: event.id,
      minerHotkey: hotkeys[uid]!,
      minerUid: uid,
      predictedAt: isoAt(predictedAtMs(e, k, nowMs)),
      predictedOutcomeId: p >= 0.5 ? yes : no,
      confidence: Math.max(p, Math.round((1 - p) * 100) / 100),
      outcomeProbabilities: { [yes]: p, [no]: Math.round((1 - p) * 100) / 100 },
      outcomePricesAtPrediction: { [yes]: 0.45, [no]: 0.55 },
      predictionIsInvalid: (e + k) % 100 === 0,
    };
  });
}

/** Every miner registered, first seen 60 days before `nowMs`. */
export function scorerRegistrations(hotkeys: readonly string[], nowMs: number) {
  return hotkeys.map((hotkey, uid) => ({ hotkey, uid, firstSeenAt: isoAt(nowMs - 60 * DAY_MS) }));
}

export const BENCH_PAYOUT = {
  minerAlphaPerDay: 2952,
  forecastingWeightShare: 1,
  alphaUsd: 412.5 * 0.0095315,
};

/**
 * The world's events in the streaming scorer's order (by resolution time, then id), each with
 * its predictions, made one event at a time: only the event being scored is in memory.
 */
export function* scorerEventStream(
  size: WorldSize,
  hotkeys: readonly string[],
  nowMs: number,
): Generator<{ event: ScorerEvent; predictions: ScorerPrediction[] }> {
  const order = Array.from({ length: size.events }, (_, e) => e)
    .sort((a, b) => resolvedAtMs(a, nowMs) - resolvedAtMs(b, nowMs) || a - b);
  for (const e of order) {
    const event = scorerEvent(e, nowMs);
    yield { event, predictions: scorerPredictions(e, event, size, hotkeys, nowMs) };
  }
}

/**
 * Seeds the events, assignments (submitted) and predictions of the world into a migrated
 * database: events from TypeScript in batches, the million rows by `generate_series` in SQL.
 */
export async function seedDatabase(
  sql: postgres.Sql,
  size: WorldSize,
  hotkeys: readonly string[],
  nowMs: number,
): Promise<void> {
  for (let start = 0; start < size.events; start += 1_000) {
    const rows = [];
    for (let e = start; e < Math.min(size.events, start + 1_000); e++) {
      rows.push({
        id: eventId(e),
        body: eventRecord(e, nowMs),
        version: 1,
        updated_at_ms: nowMs - 60_000 + e,
      });
    }
    await sql`INSERT INTO events ${sql(rows as never, "id", "body", "version", "updated_at_ms")}`;
  }
  // Numbers of this module only (no outside input) are written into the SQL; the hotkeys are $1.
  const rows = `SELECT e, k,
      'ap-bench-' || lpad(e::text, 6, '0') || '-' || lpad(k::text, 2, '0') AS id,
      'bench-' || lpad(e::text, 6, '0') AS event_id,
      (e * ${size.perEvent} + k) % ${size.miners} AS uid,
      (5 + (e * 7 + k * 13) % 90) / 100.0 AS p
    FROM generate_series(0, ${size.events - 1}) e, generate_series(0, ${size.perEvent - 1}) k`;
  const keys = [hotkeys as string[]] as never[];
  await sql.unsafe(
    `INSERT INTO assignments (id, agent_version_id, event_id, round, miner_hotkey, miner_uid,
      event_ends_at_ms, status, created_at_ms)
    SELECT r.id, 'agv-' || r.uid, r.event_id, 0, ($1::TEXT[])[r.uid + 1], r.uid, ${nowMs}, 'submitted', ${nowMs}
    FROM (${rows}) r`,
    keys,
  );
  // resolvedAt and predictedAt as resolvedAtMs/predictedAtMs above compute them.
  await sql.unsafe(
    `INSERT INTO predictions (agent_prediction_id, event_id, agent_version_id, round, miner_hotkey,
      miner_uid, validator_hotkey, predicted_at_ms, outcome_prices_at_prediction, reported, validation)
    SELECT r.id, r.event_id, 'agv-' || r.uid, 0, ($1::TEXT[])[r.uid + 1], r.uid, 'bench-validator',
      ${nowMs - HOUR_MS}::BIGINT - ((r.e * 7919) % ${28 * 24}) * ${HOUR_MS}::BIGINT
        - (1 + (r.e + r.k) % 24) * ${HOUR_MS}::BIGINT,
      jsonb_build_object(r.event_id || '-yes', 0.45, r.event_id || '-no', 0.55),
      jsonb_build_object('schemaVersion', '1.0', 'submittedAt', '2026-11-20T12:00:00.000Z',
        'predictionType', 'binary',
        'predictedOutcomeId', r.event_id || CASE WHEN r.p >= 0.5 THEN '-yes' ELSE '-no' END,
        'confidence', greatest(r.p, round(1 - r.p, 2)),
        'outcomeProbabilities', jsonb_build_object(r.event_id || '-yes', r.p, r.event_id || '-no', round(1 - r.p, 2)),
        'outcomePricesAtPrediction', jsonb_build_object(r.event_id || '-yes', 0.45, r.event_id || '-no', 0.55),
        'executionMetadata', jsonb_build_object('predictionIsInvalid', (r.e + r.k) % 100 = 0)),
      jsonb_build_object('isValid', (r.e + r.k) % 100 <> 0,
        'reasons', CASE WHEN (r.e + r.k) % 100 = 0 THEN '["agent_reported_invalid"]'::JSONB ELSE '[]'::JSONB END,
        'rawObserved', NULL)
    FROM (${rows}) r`,
    keys,
  );
  await sql`ANALYZE`;
}
