import assert from "node:assert/strict";
import { MetagraphView } from "../../actors/validators/mod.ts";
import {
  scoredPredictionsPage,
  type ScoredPredictionsQuery,
  traceSummaryOf,
} from "../../actors/scoring/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import { adapterTest } from "../support/adapters.ts";
import { runJobOnce } from "../support/jobs.ts";
import { minerHotkey } from "../support/assignments.ts";
import {
  BASE,
  DAY,
  HOUR,
  no,
  openEvent,
  resolve,
  scoringJob,
  storePredictions,
  syncMetagraph,
  VALIDATOR,
  yes,
} from "./job_fixtures.ts";

const NOW = BASE + 3 * DAY;
const e1 = openEvent("polymarket-1");
const e2 = openEvent("polymarket-2");
const e3 = openEvent("polymarket-3");
const TRACE = {
  schemaVersion: "1.0",
  trace: {
    steps: [
      { tool: "web_search", input: "secret api key sk-123" },
      { tool_name: "calculator" },
      { tool: "has spaces: not a name" },
      { thought: "no tool" },
      { toolName: "web_search" },
    ],
  },
};

/**
 * e1 (resolved BASE + 50 h): uid 0 twice (1 h, then 2 h: the later counts), uid 1 an invalid run,
 * uid 2. e2 (BASE + 49 h): uid 0. e3 resolved 40 days before now: uid 0, outside a 30-day window.
 */
async function world(storage: Storage, options: { sync: boolean }) {
  const ids = await storePredictions(storage, [e1, e2, e3], [
    { event: e1, uid: 0, pYes: 0.7, receivedAtMs: BASE + HOUR },
    { event: e1, uid: 0, pYes: 0.8, receivedAtMs: BASE + 2 * HOUR, round: 1, trace: TRACE },
    { event: e1, uid: 1, pYes: 0.9, invalid: true },
    { event: e1, uid: 2, pYes: 0.3 },
    { event: e2, uid: 0, pYes: 0.6 },
    { event: e3, uid: 0, pYes: 0.6 },
  ]);
  await resolve(storage, e1, BASE + 50 * HOUR, BASE + 50 * HOUR);
  await resolve(storage, e2, BASE + 49 * HOUR, BASE + 50 * HOUR);
  await resolve(storage, e3, NOW - 40 * DAY, BASE + 50 * HOUR);
  if (options.sync) await syncMetagraph(storage, [0, 1, 2], { syncedAtMs: NOW });
  await runJobOnce(scoringJob(storage), { leases: storage.jobLeases, nowMs: NOW });
  const view = new MetagraphView({ store: storage.metagraph, netuid: 41, syncIntervalMs: 300_000 });
  await view.refresh();
  const deps = {
    assignments: storage.assignments,
    scores: storage.scores,
    billing: storage.billing,
    metagraph: view,
  };
  const feed = (query: Partial<ScoredPredictionsQuery> = {}) =>
    scoredPredictionsPage(deps, { days: 30, limit: 50, includeTraceSummary: false, nowMs: NOW, ...query });
  return { ids, view, feed };
}

const sortedIds = (...ids: string[]) => ids.toSorted();

adapterTest(
  "the feed lists every scored prediction of the window, newest resolution first",
  async ({ storage }) => {
    const { ids, feed } = await world(storage, { sync: true });
    const [first, second, invalid, third, onE2, onE3] = ids as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const page = await feed();
    assert.deepEqual(page.items.map((row) => row.agentPredictionId), [
      ...sortedIds(first, second, invalid, third),
      onE2,
    ]);
    assert.equal(page.next, null);
    assert.ok(!page.items.some((row) => row.agentPredictionId === onE3));
    assert.deepEqual((await feed({ days: 41 })).items.at(-1)?.agentPredictionId, onE3);
    const superseded = page.items.find((row) => row.agentPredictionId === first)!;
    assert.deepEqual(superseded, {
      agentPredictionId: first,
      minerHotkey: minerHotkey(0),
      minerUid: 0,
      marketId: e1.id,
      sourceMarketId: "1",
      predictedAt: new Date(BASE + HOUR).toISOString(),
      minerLastPredictedAt: new Date(BASE + 2 * HOUR).toISOString(),
      predictedOutcomeId: yes(e1),
      confidence: 0.7,
      outcomeProbabilities: { [yes(e1)]: 0.7, [no(e1)]: 1 - 0.7 },
      outcomePricesAtPrediction: { [yes(e1)]: 0.4, [no(e1)]: 0.6 },
      resolvedOutcomeId: yes(e1),
      finalOutcomePrices: { [yes(e1)]: 1, [no(e1)]: 0 },
      resolvedAt: new Date(BASE + 50 * HOUR).toISOString(),
      predictionIsInvalid: false,
      predictionInvalidReason: null,
      predictionValidation: { isValid: true, reasons: [], rawObserved: null },
      scoredAt: new Date(NOW).toISOString(),
      resolutionStatus: "resolved",
      validatorHotkey: VALIDATOR,
      llmCalls: 0,
      llmCostMicro: "0",
    });
    const bad = page.items.find((row) => row.agentPredictionId === invalid)!;
    assert.deepEqual(
      [bad.predictionIsInvalid, bad.predictionInvalidReason, bad.predictionValidation.reasons],
      [true, "agent_reported_invalid", ["agent_reported_invalid"]],
    );
  },
);

adapterTest("the feed pages by keyset and filters one miner under its current uid", async ({ storage }) => {
  const { feed } = await world(storage, { sync: true });
  const all = (await feed()).items.map((row) => row.agentPredictionId);
  const seen: string[] = [];
  let next = undefined;
  do {
    const page: Awaited<ReturnType<typeof feed>> = await feed({ limit: 2, ...(next ? { after: next } : {}) });
    seen.push(...page.items.map((row) => row.agentPredictionId));
    next = page.next;
  } while (next);
  assert.deepEqual(seen, all);
  const mine = await feed({ minerHotkey: minerHotkey(0) });
  assert.deepEqual(mine.items.map((row) => row.minerUid), [0, 0, 0]);
  assert.deepEqual((await feed({ minerHotkey: "5NotRegistered" })).items, []);
});

adapterTest(
  "deregistered hotkeys, uids held by another hotkey and a hotkey's earlier uid are left out",
  async ({ storage }) => {
    const { view, feed } = await world(storage, { sync: true });
    // uid 1's hotkey is gone; uid 2 is held by a new hotkey; uid 0's hotkey now holds uid 7.
    await syncMetagraph(storage, [1, 2, 7], {
      syncedAtMs: NOW + 60_000,
      hotkeys: { 1: "5Other1", 2: "5Other2", 7: minerHotkey(0) },
    });
    await view.refresh();
    assert.deepEqual((await feed()).items, []);
    assert.deepEqual((await feed({ minerHotkey: minerHotkey(0) })).items, []);
  },
);

adapterTest("the feed is empty until the metagraph has synced", async ({ storage }) => {
  const { feed } = await world(storage, { sync: false });
  assert.notEqual(await storage.scores.getEvent(e1.id), null);
  assert.deepEqual(await feed(), { items: [], next: null });
});

/** Settles a call of `costMicro` in `orgId`, its usage record naming `lease` (as the validator route writes it). */
async function chargeCall(
  storage: Storage,
  orgId: string,
  at: { holdId: string; lease: string; costMicro: bigint },
) {
  const hold = { id: at.holdId, amountMicro: 100n, createdAtMs: NOW, expiresAtMs: NOW + 60_000 };
  assert.ok(await storage.billing.commit(orgId, { atMs: NOW, addHold: hold }));
  const usage = {
    holdId: at.holdId,
    amountMicro: at.costMicro,
    keyId: null,
    minerHotkey: minerHotkey(0),
    description: "echo/echo-1",
    metadata: { validatorHotkey: VALIDATOR, agentPredictionId: at.lease },
  };
  const entry = { kind: "debit" as const, amountMicro: -at.costMicro, holdId: at.holdId };
  assert.ok(await storage.billing.commit(orgId, { atMs: NOW, removeHoldId: at.holdId, entry, usage }));
}

adapterTest(
  "a row shows its lease's charged LLM calls and their cost, from the usage records when read",
  async ({ storage }) => {
    const { ids, feed } = await world(storage, { sync: true });
    const [first, second] = ids as [string, string];
    for (const orgId of ["org_a", "org_b"]) {
      await storage.orgs.create({ id: orgId, name: orgId, createdAtMs: NOW });
      await storage.billing.commit(orgId, {
        atMs: NOW,
        entry: { kind: "credit", amountMicro: 1_000n, reference: "r" },
      });
    }
    await chargeCall(storage, "org_a", { holdId: "h1", lease: first, costMicro: 30n });
    await chargeCall(storage, "org_a", { holdId: "h2", lease: second, costMicro: 5n });
    const before = (await feed()).items.find((row) => row.agentPredictionId === first)!;
    assert.deepEqual([before.llmCalls, before.llmCostMicro], [1, "30"]);
    // A call settled later (the miner's org changed meanwhile) counts at the next read.
    await chargeCall(storage, "org_b", { holdId: "h3", lease: first, costMicro: 12n });
    const rows = (await feed()).items;
    const usage = Object.fromEntries(
      rows.map((row) => [row.agentPredictionId, [row.llmCalls, row.llmCostMicro]]),
    );
    assert.deepEqual(usage[first], [2, "42"]);
    assert.deepEqual(usage[second], [1, "5"]);
    assert.equal(rows.filter((row) => row.llmCalls === 0).length, rows.length - 2);
  },
);

adapterTest("a trace summary shows sizes, steps and safe tool names only", async ({ storage }) => {
  const { ids, feed } = await world(storage, { sync: true });
  const rows = (await feed({ includeTraceSummary: true })).items;
  const traced = rows.find((row) => row.agentPredictionId === ids[1])!;
  assert.deepEqual(traced.traceSummary, {
    schemaVersion: "1.0",
    bytes: new TextEncoder().encode(JSON.stringify(TRACE)).length,
    steps: 5,
    toolNames: ["calculator", "web_search"],
  });
  assert.ok(!JSON.stringify(rows).includes("sk-123"));
  assert.equal((await feed()).items[0]!.traceSummary, undefined);
});

Deno.test("a trace that is not the submitted shape summarises as empty", () => {
  assert.deepEqual(traceSummaryOf(null), { schemaVersion: null, bytes: 4, steps: 0, toolNames: [] });
  // {"schemaVersion":"x…x","trace":{"steps":"many"}}: 2 braces + 15 + 1 + 42 + 1 + 7 + 1 + 2 + 7 + 1 + 6.
  assert.deepEqual(traceSummaryOf({ schemaVersion: "x".repeat(40), trace: { steps: "many" } }), {
    schemaVersion: null,
    bytes: 85,
    steps: 0,
    toolNames: [],
  });
});
