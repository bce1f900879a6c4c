/** Scored events and rows for the ScoreStore contract tests, and the scoring job's fence. */
import assert from "node:assert/strict";
import type { Fence, JobLeaseStore } from "../../storage/job_lease_store.ts";
import type {
  ScoredEventRecord,
  ScoredPredictionRecord,
  ScoreStore,
  WindowRow,
} from "../../storage/score_store.ts";

export const JOB = "scoring";
export const T0 = Date.UTC(2026, 10, 20, 12);
export const HOUR = 3_600_000;

export async function grant(leases: JobLeaseStore, holder = "a"): Promise<Fence> {
  const lease = await leases.tryAcquire(JOB, { holder, ttlMs: 60_000 });
  assert.ok(lease, `${holder} should be granted ${JOB}`);
  return { job: JOB, token: lease.token };
}

export function eventAt(
  eventId: string,
  resolvedAtMs: number,
  extra: Partial<ScoredEventRecord> = {},
): ScoredEventRecord {
  return {
    eventId,
    source: "polymarket",
    sourceMarketId: `m-${eventId}`,
    question: `Will ${eventId} happen?`,
    outcomes: [{ outcomeId: "yes", name: "Yes" }, { outcomeId: "no", name: "No" }],
    endDate: new Date(resolvedAtMs + HOUR).toISOString(),
    outcomePricesAtAdmission: { yes: 0.6, no: 0.4 },
    resolvedAtMs,
    winningOutcomeId: "yes",
    scoredAtMs: resolvedAtMs + 2 * HOUR,
    marketPWinAtAdmission: 0.6,
    stats: { scored: 1, valid: 1, meanBrier: 0.04, calledRate: 1, bestUid: 7 },
    ...extra,
  };
}

export function rowOf(
  event: ScoredEventRecord,
  id: string,
  miner: { hotkey: string; uid: number; counted?: boolean; predictedAtMs?: number },
): ScoredPredictionRecord {
  return {
    agentPredictionId: id,
    eventId: event.eventId,
    minerHotkey: miner.hotkey,
    minerUid: miner.uid,
    predictedAtMs: miner.predictedAtMs ?? event.resolvedAtMs - HOUR,
    resolvedAtMs: event.resolvedAtMs,
    counted: miner.counted ?? true,
    reasons: [],
    pWin: 0.8,
    brier: 0.04,
    called: true,
    marketBrier: 0.16,
    pPredicted: 0.8,
    // 1 / 0.55: a double that round-trips only when stored exactly.
    stakeReturn: 1.8181818181818181,
  };
}

/** A row as `windowRows` gives it. */
export function windowRowOf(row: ScoredPredictionRecord): WindowRow {
  const {
    eventId,
    minerHotkey,
    minerUid,
    resolvedAtMs,
    brier,
    marketBrier,
    called,
    pPredicted,
    stakeReturn,
  } = row;
  return {
    eventId,
    minerHotkey,
    minerUid,
    resolvedAtMs,
    brier,
    marketBrier,
    called,
    pPredicted,
    stakeReturn,
  };
}

export async function put(
  store: ScoreStore,
  fence: Fence,
  event: ScoredEventRecord,
  rows: ScoredPredictionRecord[],
) {
  assert.equal(await store.putEventsFenced([{ event, predictions: rows }], { fence }), true);
}

export const ids = (events: ScoredEventRecord[]) => events.map((event) => event.eventId);
