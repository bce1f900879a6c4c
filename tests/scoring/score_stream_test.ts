/**
 * The streaming scorer (`ScorerV1Stream`, `ScoreTableFold`, `MinerFold`): events one at a time,
 * per-miner sums folded in the fixed order; the same numbers as the whole-input scorer, and a
 * refusal (not a different number) when rows come out of that order.
 */
import assert from "node:assert/strict";
import {
  compareEventsForStream,
  MinerFold,
  minerRowValuesOf,
  parseScorerInput,
  scoreEventPredictions,
  scoreMiner,
  ScorerV1Stream,
  ScoreTableFold,
  scoreV1,
} from "../../actors/scoring/mod.ts";
import {
  binaryEvent,
  binaryPrediction,
  COMPUTED_AT_MS,
  daysAgo,
  HOTKEY_1,
  HOTKEY_2,
  registration,
  shuffled,
} from "./scorer_fixtures.ts";

const GOLDEN = JSON.parse(
  await Deno.readTextFile(new URL("./golden/scoring-v1.json", import.meta.url)),
) as { input: unknown };

function registrationsMs(registrations: readonly { hotkey: string; uid: number; firstSeenAt: string }[]) {
  return registrations.map(({ hotkey, uid, firstSeenAt }) => ({
    hotkey,
    uid,
    firstSeenAtMs: Date.parse(firstSeenAt),
  }));
}

Deno.test("the golden input streamed event by event gives the whole-input scorer's every number", () => {
  const input = parseScorerInput(GOLDEN.input);
  const expected = scoreV1(input);
  const stream = new ScorerV1Stream({
    computedAtMs: Date.parse(input.computedAt),
    windowDays: input.windowDays,
    registrations: registrationsMs(input.registrations),
  });
  const byEvent = Map.groupBy(input.predictions, (prediction) => prediction.eventId);
  for (const event of input.events.toSorted(compareEventsForStream)) {
    const { scored, result } = stream.addEvent(event, byEvent.get(event.id) ?? []);
    for (const row of scored) {
      assert.deepEqual(row.result, expected.predictions[row.prediction.agentPredictionId]);
    }
    if (result !== null) assert.deepEqual(result, expected.events[event.id]);
  }
  const totals = stream.finish(input.payout);
  assert.deepEqual(totals.miners, expected.miners);
  assert.equal(totals.forecastingBudgetAlphaPerDay, expected.forecastingBudgetAlphaPerDay);
});

Deno.test("a resolved event streamed before an earlier one is refused, not summed out of order", () => {
  const late = binaryEvent("a", { resolvedAt: daysAgo(1) });
  const early = binaryEvent("b", { resolvedAt: daysAgo(3) });
  assert.ok(compareEventsForStream(early, late) < 0);
  const stream = new ScorerV1Stream({
    computedAtMs: COMPUTED_AT_MS,
    windowDays: 30,
    registrations: registrationsMs([registration(HOTKEY_1, 1)]),
  });
  stream.addEvent(late, [binaryPrediction("p1", "a", { at: daysAgo(4) })]);
  assert.throws(() => stream.addEvent(early, [binaryPrediction("p2", "b", { at: daysAgo(4) })]), RangeError);
});

Deno.test("a miner's fold equals its sorted rows scored at once, whatever order they were listed in", () => {
  const events = Array.from({ length: 12 }, (_, i) =>
    binaryEvent(`e${String(i).padStart(2, "0")}`, {
      resolvedAt: daysAgo(1 + (i % 4) * 6),
      endDate: daysAgo(0.5 + (i % 4) * 6),
      admission: [0.3 + i / 40, 0.7 - i / 40],
    }));
  const rows = events.map((event, i) =>
    scoreEventPredictions(event, [
      binaryPrediction(`p${i}`, event.id, {
        at: daysAgo(2 + (i % 4) * 6),
        probs: [0.2 + i / 20, 0.8 - i / 20],
        prices: i % 3 === 0 ? null : [0.4, 0.6],
        invalid: i === 7,
      }),
    ]).counted[0]!
  );
  const once = scoreMiner(shuffled(rows, 7), { computedAtMs: COMPUTED_AT_MS, firstSeenAtMs: 0 });
  const ordered = events.map((_, i) => i).sort((a, b) => compareEventsForStream(events[a]!, events[b]!));
  const fold = new MinerFold(COMPUTED_AT_MS);
  for (const i of ordered) fold.add(minerRowValuesOf(rows[i]!));
  assert.deepEqual(fold.result(0), once);
  assert.equal(once.scoring.validPreds, 11);
});

Deno.test("the table fold leaves out rows outside the window and of other registrations", () => {
  const table = new ScoreTableFold(registrationsMs([registration(HOTKEY_1, 1), registration(HOTKEY_2, 2)]), {
    computedAtMs: COMPUTED_AT_MS,
    windowDays: 30,
  });
  const row = (eventId: string, resolvedAtMs: number, miner: { hotkey: string; uid: number }) => ({
    eventId,
    resolvedAtMs,
    minerHotkey: miner.hotkey,
    minerUid: miner.uid,
    valid: { brier: 0.04, marketBrier: 0.25, called: true, pPredicted: 0.8, stakeReturn: 2 },
  });
  table.add(row("old", COMPUTED_AT_MS - 30 * 86_400_000, { hotkey: HOTKEY_1, uid: 1 }));
  table.add(row("a", COMPUTED_AT_MS - 1, { hotkey: HOTKEY_1, uid: 1 }));
  table.add(row("a", COMPUTED_AT_MS - 1, { hotkey: HOTKEY_1, uid: 9 }));
  table.add(row("a", COMPUTED_AT_MS - 1, { hotkey: "5Fnobody", uid: 2 }));
  table.add(row("future", COMPUTED_AT_MS + 1, { hotkey: HOTKEY_2, uid: 2 }));
  const [one, two] = table.rows();
  assert.deepEqual([one!.uid, one!.scoring.preds, one!.scoring.roi], [1, 1, 1]);
  assert.deepEqual([two!.uid, two!.scoring.preds, two!.scoring.gate], [2, 0, "no_predictions"]);
});
