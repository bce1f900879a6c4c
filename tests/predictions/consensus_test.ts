import assert from "node:assert/strict";
import {
  type ConsensusInput,
  consensusOf,
  type ConsensusPrediction,
  scoreWeightedConsensus,
} from "../../actors/predictions/mod.ts";
import type { PredictionDigest } from "../../storage/assignment_record.ts";
import { eventRecord, resolved } from "../support/events.ts";

const OUTCOMES = ["yes", "no"];
const T = Date.parse("2026-11-20T12:00:00.000Z");

function at(hours: number): string {
  return new Date(T + hours * 3_600_000).toISOString();
}

let sequence = 0;
function prediction(
  hotkey: string,
  uid: number | null,
  probs: [number, number],
  options: { hours?: number; isValid?: boolean; id?: string } = {},
): ConsensusPrediction {
  sequence += 1;
  return {
    agentPredictionId: options.id ?? `ap-${String(sequence).padStart(4, "0")}`,
    minerHotkey: hotkey,
    minerUid: uid,
    predictedAt: at(options.hours ?? 0),
    outcomeProbabilities: { yes: probs[0], no: probs[1] },
    isValid: options.isValid ?? true,
  };
}

/**
 * Registered: A (uid 1, score 0.3), B (uid 2, score 0.1), C (uid 3, score 0), E (uid 5, score 0.5,
 * no prediction). Contributions: A (0.7, 0.3); B (0.201, 0.804) → p′ (0.2, 0.8); C (1, 0).
 */
function worked(): ConsensusInput {
  return {
    outcomeIds: OUTCOMES,
    miners: [
      { hotkey: "E", uid: 5, score: 0.5 },
      { hotkey: "C", uid: 3, score: 0 },
      { hotkey: "A", uid: 1, score: 0.3 },
      { hotkey: "B", uid: 2, score: 0.1 },
    ],
    predictions: [
      prediction("A", 1, [0.1, 0.9], { hours: -5 }), // superseded by A's later valid prediction
      prediction("A", 1, [0.7, 0.3], { hours: -3 }),
      prediction("A", 1, [0, 1], { hours: -1, isValid: false }), // later, but invalid
      prediction("B", 2, [0.201, 0.804], { hours: -2 }),
      prediction("C", 3, [1, 0], { hours: -0.5 }),
      prediction("D", 4, [1, 0]), // D is no longer registered
      prediction("F", 5, [1, 0]), // uid 5 is now held by E
      prediction("A", 9, [0, 1]), // A's earlier uid
      prediction("G", null, [1, 0]), // no uid
    ],
  };
}

Deno.test("the consensus is the score-weighted mean of the latest valid normalised predictions", () => {
  // yes = (0.3·0.7 + 0.1·0.2 + 0·1) / 0.4 = 0.23 / 0.4 = 0.575; no = (0.09 + 0.08) / 0.4 = 0.425.
  const input = worked();
  const consensus = scoreWeightedConsensus(input);
  const id = (index: number) => input.predictions[index]!.agentPredictionId;
  assert.deepEqual(consensus.forecast, {
    outcomeProbabilities: { yes: 0.575, no: 0.425 },
    contributors: 2,
    method: "score_weighted_mean_v1",
    updatedAt: at(-2), // B's; C weighs 0 and does not count
  });
  assert.deepEqual(consensus.miners, [
    { uid: 1, hotkey: "A", agentPredictionId: id(1), weight: 0.3, predictedAt: at(-3) },
    { uid: 2, hotkey: "B", agentPredictionId: id(3), weight: 0.1, predictedAt: at(-2) },
    { uid: 3, hotkey: "C", agentPredictionId: id(4), weight: 0, predictedAt: at(-0.5) },
  ]);
});

Deno.test("when every contribution weighs 0, all weigh 1", () => {
  // yes = (0.7 + 0.2 + 1) / 3 = 0.633333; no = (0.3 + 0.8 + 0) / 3 = 0.366667.
  const input = worked();
  const consensus = scoreWeightedConsensus({
    ...input,
    miners: input.miners.map((m) => ({ ...m, score: 0 })),
  });
  assert.deepEqual(consensus.forecast?.outcomeProbabilities, { yes: 0.633333, no: 0.366667 });
  assert.equal(consensus.forecast?.contributors, 3);
  assert.deepEqual(consensus.miners.map((m) => [m.uid, m.weight]), [[1, 1], [2, 1], [3, 1]]);
  assert.equal(consensus.forecast?.updatedAt, at(-0.5));
});

Deno.test("a miner's probabilities are shown, normalised, only when asked (a resolved event)", () => {
  const { miners } = scoreWeightedConsensus(worked(), { showMinerProbabilities: true });
  assert.deepEqual(miners.map((m) => m.outcomeProbabilities), [
    { yes: 0.7, no: 0.3 },
    { yes: 0.2, no: 0.8 },
    { yes: 1, no: 0 },
  ]);
});

Deno.test("updatedAt is not earlier than the score table it was weighted with", () => {
  const consensus = scoreWeightedConsensus(worked(), { scoresComputedAt: at(1) });
  assert.equal(consensus.forecast?.updatedAt, at(1));
});

Deno.test("with no registered miner's valid prediction there is no forecast", () => {
  const input = worked();
  const noneValid = input.predictions.map((p) => ({ ...p, isValid: false }));
  assert.deepEqual(scoreWeightedConsensus({ ...input, predictions: noneValid }), {
    forecast: null,
    miners: [],
  });
  assert.deepEqual(scoreWeightedConsensus({ ...input, miners: [] }), { forecast: null, miners: [] });
});

Deno.test("miner rows are the top 10 by weight, ties to the lower uid", () => {
  const miners = Array.from(
    { length: 12 },
    (_, i) => ({ hotkey: `H${i + 1}`, uid: i + 1, score: i < 6 ? 0.1 : 0.2 }),
  );
  const predictions = miners.map((m) => prediction(m.hotkey, m.uid, [0.5, 0.5]));
  const consensus = scoreWeightedConsensus({ outcomeIds: OUTCOMES, miners, predictions });
  assert.deepEqual(consensus.miners.map((m) => m.uid), [7, 8, 9, 10, 11, 12, 1, 2, 3, 4]);
  assert.equal(consensus.forecast?.contributors, 12);
});

Deno.test("of two valid predictions at the same instant the greater agentPredictionId counts", () => {
  const consensus = scoreWeightedConsensus({
    outcomeIds: OUTCOMES,
    miners: [{ hotkey: "A", uid: 1, score: 0.2 }],
    predictions: [
      prediction("A", 1, [0.9, 0.1], { id: "ap-b" }),
      prediction("A", 1, [0.4, 0.6], { id: "ap-a" }),
    ],
  });
  assert.deepEqual(consensus.forecast?.outcomeProbabilities, { yes: 0.9, no: 0.1 });
});

Deno.test("keys follow the event's outcome order", () => {
  const consensus = scoreWeightedConsensus({
    outcomeIds: ["c", "a", "b"],
    miners: [{ hotkey: "A", uid: 1, score: 1 }],
    predictions: [{
      agentPredictionId: "ap-1",
      minerHotkey: "A",
      minerUid: 1,
      predictedAt: at(0),
      outcomeProbabilities: { a: 0.2, b: 0.3, c: 0.5 },
      isValid: true,
    }],
  });
  assert.deepEqual(Object.keys(consensus.forecast!.outcomeProbabilities), ["c", "a", "b"]);
});

Deno.test("a negative or non-numeric score is refused", () => {
  const input = worked();
  assert.throws(
    () => scoreWeightedConsensus({ ...input, miners: [{ hotkey: "A", uid: 1, score: -1 }] }),
    RangeError,
  );
});

Deno.test("a prediction stored valid but received after the event's resolution (learned later) is late: it is no contribution, as the scorer judges it", () => {
  const nowMs = T;
  const open = eventRecord("polymarket-late", nowMs - 48 * 3_600_000, { endsInHours: 96 });
  const event = resolved(open, nowMs - 3_600_000);
  const [yes, no] = event.outcomes.map((outcome) => outcome.outcomeId) as [string, string];
  const digest = (hotkey: string, uid: number, predictedAtMs: number, p: number): PredictionDigest => ({
    agentPredictionId: `ap-${hotkey}`,
    eventId: event.id,
    minerHotkey: hotkey,
    minerUid: uid,
    predictedAtMs,
    outcomeProbabilities: { [yes]: p, [no]: 1 - p },
    isValid: true,
    lateOnly: false,
  });
  const scored = {
    miners: [{ hotkey: "A", uid: 1, score: 0.5 }, { hotkey: "B", uid: 2, score: 0.5 }],
    computedAt: new Date(nowMs).toISOString(),
  };
  const digests = [digest("A", 1, nowMs - 2 * 3_600_000, 0.8), digest("B", 2, nowMs - 60_000, 0.2)];
  const { forecast, miners } = consensusOf(event, digests, scored);
  assert.equal(forecast?.contributors, 1);
  assert.deepEqual(forecast?.outcomeProbabilities, { [yes]: 0.8, [no]: 0.2 });
  assert.deepEqual(miners.map((row) => row.uid), [1]);
  // Before the resolution was known, the same prediction was on time and counted.
  assert.equal(consensusOf(open, digests, scored).forecast?.contributors, 2);
});

Deno.test("a prediction stored invalid only for being late counts once the event's end moved past it; one invalid for more does not", () => {
  const nowMs = T;
  const ended = eventRecord("polymarket-moved", nowMs - 48 * 3_600_000, { endsInHours: 24 });
  const [yes, no] = ended.outcomes.map((outcome) => outcome.outcomeId) as [string, string];
  const late = (hotkey: string, uid: number, lateOnly: boolean): PredictionDigest => ({
    agentPredictionId: `ap-${hotkey}`,
    eventId: ended.id,
    minerHotkey: hotkey,
    minerUid: uid,
    predictedAtMs: nowMs - 3_600_000, // after the first endDate (nowMs - 24 h)
    outcomeProbabilities: { [yes]: 0.9, [no]: 0.1 },
    isValid: false,
    lateOnly,
  });
  const scored = {
    miners: [{ hotkey: "A", uid: 1, score: 0.5 }, { hotkey: "B", uid: 2, score: 0.5 }],
    computedAt: new Date(nowMs).toISOString(),
  };
  const digests = [late("A", 1, true), late("B", 2, false)];
  assert.equal(consensusOf(ended, digests, scored).forecast, null, "late against the first endDate");
  const extended = { ...ended, endDate: new Date(nowMs + 24 * 3_600_000).toISOString() };
  const { forecast, miners } = consensusOf(extended, digests, scored);
  assert.equal(forecast?.contributors, 1);
  assert.deepEqual(miners.map((row) => row.uid), [1], "B was invalid for another reason too");
});
