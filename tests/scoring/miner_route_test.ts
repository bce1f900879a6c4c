import assert from "node:assert/strict";
import { minerHotkey } from "../support/assignments.ts";
import { DAY } from "./job_fixtures.ts";
import { CODE, MINER, minerWorld, NOW, PLAN, UPLOADER, WEEK_1, WEEK_2, WEEK_3 } from "./miner_world.ts";

const iso = (ms: number) => new Date(ms).toISOString();

Deno.test("GET /v1/miners/{hotkey}: its leaderboard row, figures over the window, newest scored events, agent versions", async () => {
  await using service = await minerWorld();
  const response = await service.request(`/v1/miners/${MINER}`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
  const text = await response.text();
  assert.ok(!text.includes("agent code") && !text.includes("agent_main"), "never the agent's code");
  const body = JSON.parse(text);
  assert.deepEqual(Object.keys(body), [
    "hotkey",
    "updatedAt",
    "scorerVersion",
    "window",
    "standing",
    "intervals",
    "reliability",
    "brierOverTime",
    "scoredEvents",
    "agents",
  ]);
  assert.equal(body.hotkey, MINER);
  assert.equal(body.scorerVersion, "1.0.0");
  assert.deepEqual(body.window, {
    computedAt: iso(NOW),
    windowDays: 30,
    resolvedAfter: iso(NOW - 30 * DAY),
    resolvedUntil: iso(NOW),
  });
  const board = await (await service.request("/v1/leaderboard")).json();
  assert.deepEqual(body.standing, { rank: 1, count: 2, neuron: board.neurons[0] });
  assert.equal(body.standing.neuron.hotkey, MINER);
  assert.deepEqual(
    [
      body.standing.neuron.scoring.preds,
      body.standing.neuron.scoring.brier,
      body.standing.neuron.scoring.gate,
    ],
    [6, 0.2205, "pass"],
  );
  // Briers 0.09, 0.01, 0.64, 0.16, 0.2025 (the sixth is invalid); edges 0.36 minus each.
  assert.deepEqual(body.intervals, {
    validEvents: 5,
    meanBrier: { mean: 0.2205, low: 0.00521, high: 0.43579, n: 5 },
    meanEdge: { mean: 0.1395, low: -0.07579, high: 0.35479, n: 5 },
  });
  // Forecasts of the predicted outcome 0.7, 0.9, 0.8 (it said "no" at 0.2 and lost), 0.6, 0.55.
  assert.deepEqual(body.reliability.filter((bin: { count: number }) => bin.count > 0), [
    { bin: 5, count: 1, meanForecast: 0.55, observedFrequency: 1 },
    { bin: 6, count: 1, meanForecast: 0.6, observedFrequency: 1 },
    { bin: 7, count: 1, meanForecast: 0.7, observedFrequency: 1 },
    { bin: 8, count: 1, meanForecast: 0.8, observedFrequency: 0 },
    { bin: 9, count: 1, meanForecast: 0.9, observedFrequency: 1 },
  ]);
  assert.equal(body.reliability.length, 10);
  assert.deepEqual(body.brierOverTime, [
    { weekStart: iso(WEEK_1), count: 2, meanBrier: 0.05, marketMeanBrier: 0.36 },
    { weekStart: iso(WEEK_2), count: 2, meanBrier: 0.4, marketMeanBrier: 0.36 },
    { weekStart: iso(WEEK_3), count: 1, meanBrier: 0.2025, marketMeanBrier: 0.36 },
  ]);
  assert.equal(body.scoredEvents.total, 6);
  const items = body.scoredEvents.items;
  assert.deepEqual(
    items.map((item: { eventId: string }) => item.eventId),
    [6, 5, 4, 3, 2, 1].map((n) => `polymarket-${n}`),
  );
  assert.deepEqual(items[3], {
    eventId: "polymarket-3",
    question: "Will polymarket-3 happen?",
    resolvedAt: iso(PLAN[2]!.resolvedAtMs),
    uid: 0,
    predictedAt: items[3].predictedAt,
    outcome: { outcomeId: "polymarket-3-yes", name: "Yes" },
    invalid: false,
    pWin: 0.2,
    pPredicted: 0.8,
    called: false,
    brier: 0.64,
    marketPWin: 0.4,
    marketBrier: 0.36,
  });
  assert.deepEqual([items[0].invalid, items[0].brier, items[0].marketBrier], [true, null, null]);
  assert.deepEqual(body.agents.currentVersionId, "agv_second");
  assert.deepEqual(
    body.agents.versions.map((v: { versionId: string; current: boolean }) => [v.versionId, v.current]),
    [
      ["agv_second", true],
      ["agv_first", false],
    ],
  );
  assert.deepEqual(Object.keys(body.agents.versions[1]), [
    "versionId",
    "minerHotkey",
    "sha256",
    "sizeBytes",
    "name",
    "createdAt",
    "current",
  ]);
  assert.equal(body.agents.versions[1].sizeBytes, new TextEncoder().encode(CODE).length);
});

Deno.test("GET /v1/miners/{hotkey}: a hotkey off the board with an agent version has no standing and no scored events", async () => {
  await using service = await minerWorld();
  const body = await (await service.request(`/v1/miners/${UPLOADER}`)).json();
  assert.equal(body.standing, null);
  assert.deepEqual(body.intervals, { validEvents: 0, meanBrier: null, meanEdge: null });
  assert.deepEqual(body.brierOverTime, []);
  assert.deepEqual(body.scoredEvents, { total: 0, items: [] });
  assert.deepEqual(body.reliability.map((bin: { count: number }) => bin.count), [
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
  ]);
  assert.deepEqual(body.agents.versions.map((v: { name: string }) => v.name), ["only"]);
});

Deno.test("GET /v1/miners/{hotkey}: an unknown hotkey is 404, a malformed one or a query parameter 400 naming it", async () => {
  await using service = await minerWorld();
  const unknown = await service.request(`/v1/miners/${minerHotkey(9)}`);
  assert.equal(unknown.status, 404);
  assert.equal((await unknown.json()).error.code, "not_found");
  for (
    const bad of ["not-a-hotkey", MINER.slice(0, -1) + (MINER.endsWith("a") ? "b" : "a"), "5".repeat(3_000)]
  ) {
    const response = await service.request(`/v1/miners/${bad}`);
    assert.equal(response.status, 400, bad);
    const error = (await response.json()).error;
    assert.equal(error.code, "invalid_request");
    assert.deepEqual(error.details.fields.map((f: { field: string }) => f.field), ["hotkey"]);
  }
  const query = await service.request(`/v1/miners/${MINER}?limit=5`);
  assert.equal(query.status, 400);
  assert.deepEqual((await query.json()).error.details.fields.map((f: { field: string }) => f.field), [
    "limit",
  ]);
});
