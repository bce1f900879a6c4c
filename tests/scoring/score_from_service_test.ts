/**
 * `deno task score --from-service`: the scorer input built from a service (a local fake speaking
 * the routes' wire format) scores exactly like the world it serves; every upstream failure is a
 * clear error.
 */
import assert from "node:assert/strict";
import { scoreV1, weightsForEmit } from "../../actors/scoring/mod.ts";
import { readScorerInput, ServiceReadError } from "../../scripts/score/score_from_service.ts";
import { runScore } from "../../scripts/score/score.ts";
import { testSigner } from "../support/validator_loop.ts";
import { errorResponse, FakeScoringService, worldAnswers } from "./fake_scoring_service.ts";
import {
  binaryEvent,
  binaryPrediction,
  COMPUTED_AT_MS,
  daysAgo,
  HOTKEY_1,
  HOTKEY_2,
  HOTKEY_3,
  HOUR,
  registration,
  scorerInput,
} from "./scorer_fixtures.ts";

const SIGNER = testSigner("score-cli-validator");
const NOW = COMPUTED_AT_MS + HOUR;

/** Three miners on three resolved events: re-predicted, agent-flagged invalid, late, unpredicted. */
const WORLD = scorerInput({
  events: [
    binaryEvent("e1"),
    binaryEvent("e2", { winner: "no", resolvedAt: daysAgo(3), endDate: daysAgo(2.5) }),
    binaryEvent("e3", { resolvedAt: daysAgo(1) }),
  ],
  predictions: [
    binaryPrediction("p1", "e1", { probs: [0.6, 0.4] }),
    binaryPrediction("p2", "e1", { probs: [0.8, 0.2], at: daysAgo(1.5) }),
    binaryPrediction("p3", "e2", { hotkey: HOTKEY_2, uid: 2, probs: [0.3, 0.7], predicted: "no" }),
    binaryPrediction("p4", "e2", { hotkey: HOTKEY_2, uid: 2, at: daysAgo(2.8), invalid: true }),
    binaryPrediction("p5", "e3", { hotkey: HOTKEY_2, uid: 2, probs: [0.9, 0.1], at: daysAgo(0.8) }),
    binaryPrediction("p6", "e3", { hotkey: HOTKEY_3, uid: 3, probs: [0.7, 0.3], at: daysAgo(4) }),
  ],
  registrations: [registration(HOTKEY_1, 1), registration(HOTKEY_2, 2, 100), registration(HOTKEY_3, 3, 6)],
});

function read(url: string) {
  return readScorerInput({ base: url, signer: SIGNER, nowMs: () => NOW });
}

Deno.test("the input read from a service scores exactly like the world it serves, page by page", async () => {
  await using service = new FakeScoringService(WORLD, { pageSize: 2 });
  const { input, notes } = await read(service.url);
  assert.deepEqual(notes, []);
  assert.deepEqual(scoreV1(input), scoreV1(WORLD));
  assert.deepEqual(input.events, WORLD.events);
  assert.deepEqual(input.registrations, WORLD.registrations);
  assert.deepEqual(input.payout, WORLD.payout);
  assert.equal(input.computedAt, WORLD.computedAt);
  // The agent's own flag, not the verdict: the late p5 is scored late by the scorer itself.
  const flags = Object.fromEntries(
    input.predictions.map((p) => [p.agentPredictionId, p.predictionIsInvalid]),
  );
  assert.deepEqual(flags, { p1: false, p2: false, p3: false, p4: true, p5: false, p6: false });
  assert.deepEqual(scoreV1(input).predictions.p5?.reasons, ["late_prediction"]);
  const feed = service.requests.filter((r) => r.startsWith("/v1/validators/scored-predictions"));
  assert.equal(feed.length, 3, "six rows in pages of two");
  assert.ok(feed.every((r) => r.includes("days=32")), "the window reaches past computedAt − 30 days");
  assert.equal(service.requests.filter((r) => r.startsWith("/v1/events?")).length, 2);
});

Deno.test("deno task score --from-service prints the scores and weights; the key comes from FGW_SIGNING_SECRET", async () => {
  await using service = new FakeScoringService(WORLD);
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    readTextFile: () => Promise.reject(new Error("no files")),
    out: (text: string) => out.push(text),
    err: (text: string) => err.push(text),
    env: { FGW_SIGNING_SECRET: "ab".repeat(32) },
    nowMs: () => NOW,
  };
  assert.equal(await runScore(["--from-service", service.url, "--weights"], io), 0, err.join("\n"));
  const expected = scoreV1(WORLD);
  assert.deepEqual(JSON.parse(out[0]!), { ...expected, weights: weightsForEmit(expected) });

  assert.equal(await runScore(["--from-service", service.url], { ...io, env: {} }), 2);
  assert.match(err.at(-1)!, /FGW_SIGNING_SECRET is not set/);
  assert.equal(
    await runScore(["--from-service", service.url], { ...io, env: { FGW_SIGNING_SECRET: "zz" } }),
    2,
  );
  assert.match(err.at(-1)!, /Invalid signing secret/);
  assert.equal(await runScore(["--from-service", service.url, "file.json"], io), 2);
});

Deno.test("a service that is down is named with the request that failed", async () => {
  const closed = new FakeScoringService(WORLD);
  const url = closed.url;
  await closed[Symbol.asyncDispose]();
  await assert.rejects(read(url), (error: Error) => {
    assert.ok(error instanceof ServiceReadError);
    assert.match(
      error.message,
      new RegExp(`^Cannot reach the service at ${url} \\(GET /v1/leaderboard\\?limit=256\\)`),
    );
    return true;
  });
});

const failures: Array<[string, string, () => Response, RegExp]> = [
  [
    "a refused signature (401)",
    "/v1/validators/scored-predictions",
    () => errorResponse(401, "invalid_signature", "Signature does not verify"),
    /HTTP 401 invalid_signature: Signature does not verify \(the signature was refused: check FGW_SIGNING_SECRET/,
  ],
  [
    "a stale metagraph (503)",
    "/v1/validators/scored-predictions",
    () => errorResponse(503, "metagraph_unavailable", "Metagraph is stale"),
    /HTTP 503 metagraph_unavailable: Metagraph is stale \(the service's metagraph is stale/,
  ],
  [
    "a hotkey without a permit (403)",
    "/v1/validators/scored-predictions",
    () => errorResponse(403, "validator_permit_required", "No permit"),
    /HTTP 403 validator_permit_required: No permit \(the key's hotkey must be in the metagraph/,
  ],
  [
    "a proxy's error page",
    "/v1/leaderboard",
    () => new Response("<html>Bad gateway</html>", { status: 502 }),
    /GET \/v1\/leaderboard\?limit=256: HTTP 502 <html>Bad gateway<\/html>/,
  ],
  [
    "an answer that is not JSON",
    "/v1/events",
    () => new Response("ok"),
    /GET \/v1\/events\?status=resolved&sortBy=resolvedAt&resolvedSince=.*: the answer is not JSON/,
  ],
  [
    "a board whose computedAt is not an instant",
    "/v1/leaderboard",
    () => {
      const { board } = worldAnswers(WORLD);
      return Response.json({ ...board, scoringMeta: { ...board.scoringMeta, computedAt: "yesterday" } });
    },
    /GET \/v1\/leaderboard\?limit=256: unexpected answer: scoringMeta\.computedAt: /,
  ],
  [
    "a board missing a field",
    "/v1/leaderboard",
    () => {
      const { neurons: _neurons, ...board } = worldAnswers(WORLD).board;
      return Response.json(board);
    },
    /GET \/v1\/leaderboard\?limit=256: unexpected answer: neurons: /,
  ],
  [
    "a metagraph that has not synced (an empty, stale board)",
    "/v1/leaderboard",
    () => Response.json({ ...worldAnswers(WORLD).board, stale: true, count: 0, neurons: [] }),
    /the service's metagraph has not synced yet/,
  ],
  [
    "a board cut short",
    "/v1/leaderboard",
    () => Response.json({ ...worldAnswers(WORLD).board, count: 300 }),
    /300 miners but 3 rows/,
  ],
];

for (const [what, path, answer, message] of failures) {
  Deno.test(`${what} is a clear error`, async () => {
    await using service = new FakeScoringService(WORLD, { override: { [path]: answer } });
    await assert.rejects(read(service.url), (error: Error) => {
      assert.ok(error instanceof ServiceReadError, String(error));
      assert.match(error.message, message);
      return true;
    });
  });
}

Deno.test("an event of the feed missing from /v1/events is an error, not a silent drop", async () => {
  await using service = new FakeScoringService(WORLD, { hideEvents: ["e2"] });
  await assert.rejects(read(service.url), /Event e2 of the feed is not among the resolved events/);
});

Deno.test("without prices the payouts use 0 prices and say so", async () => {
  const { board } = worldAnswers(WORLD);
  const unpriced = {
    ...board,
    prices: { taoUsd: null, alphaTao: null, alphaUsd: null, taoPriceUpdatedAt: null },
    scoringMeta: { ...board.scoringMeta, minerAlphaPerDay: null, forecastingBudgetAlphaPerDay: null },
  };
  await using service = new FakeScoringService(WORLD, {
    override: { "/v1/leaderboard": () => Response.json(unpriced) },
  });
  const { input, notes } = await read(service.url);
  assert.deepEqual(input.payout, { minerAlphaPerDay: 0, forecastingWeightShare: 0.5, alphaUsd: 0 });
  assert.match(notes[0]!, /no prices yet/);
});
