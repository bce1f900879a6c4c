/**
 * The "latest" rule: of a miner's predictions on an event only the latest counts — the greatest
 * `predictedAt`, then the greatest `agentPredictionId` (code-point order).
 */
import type { ScoredPrediction } from "./prediction_score.ts";
import { compareCodePoints } from "./scoring_math.ts";

/** What the rule reads of a prediction. */
export interface Ordered {
  predictedAtMs: number;
  agentPredictionId: string;
}

/** Negative when `a` is earlier than `b`, positive when later (the latest sorts last). */
export function compareLatest(a: Ordered, b: Ordered): number {
  return a.predictedAtMs - b.predictedAtMs || compareCodePoints(a.agentPredictionId, b.agentPredictionId);
}

/** The latest of `items` by `compareLatest`, or undefined when there are none. */
export function latestOf<T extends Ordered>(items: Iterable<T>): T | undefined {
  let latest: T | undefined;
  for (const item of items) if (latest === undefined || compareLatest(item, latest) > 0) latest = item;
  return latest;
}

/** A scored prediction's place in the latest order. */
export function orderOf(row: ScoredPrediction): Ordered {
  return { predictedAtMs: row.predictedAtMs, agentPredictionId: row.prediction.agentPredictionId };
}

/**
 * The counted row of each miner on each event: the latest prediction per (event, hotkey, uid). A
 * miner is its (hotkey, uid) registration, so a hotkey's predictions under an earlier uid form
 * their own group (and predictions without a uid theirs).
 */
export function countedPredictions(rows: readonly ScoredPrediction[]): ScoredPrediction[] {
  // event id → hotkey → uid → the latest so far (nested maps: no key encoding to get wrong).
  const groups = new Map<string, Map<string, Map<number | null, ScoredPrediction>>>();
  const counted: ScoredPrediction[] = [];
  for (const row of rows) {
    const { eventId, minerHotkey, minerUid } = row.prediction;
    const byHotkey = groups.get(eventId) ?? groups.set(eventId, new Map()).get(eventId)!;
    const byUid = byHotkey.get(minerHotkey) ?? byHotkey.set(minerHotkey, new Map()).get(minerHotkey)!;
    const current = byUid.get(minerUid);
    if (current === undefined) counted.push(row);
    if (current === undefined || compareLatest(orderOf(row), orderOf(current)) > 0) byUid.set(minerUid, row);
  }
  return counted.map((first) => {
    const { eventId, minerHotkey, minerUid } = first.prediction;
    return groups.get(eventId)!.get(minerHotkey)!.get(minerUid)!;
  });
}
