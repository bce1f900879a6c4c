/**
 * The proof of issue 10: markets come from a fake Gamma server, three miners' agents are leased
 * and submitted through the real validator loop (valid, agent-flagged invalid, out of range,
 * re-predicted, late after an early resolution), the markets resolve on Gamma (resolved, voided,
 * disputed then resolved), the ingestion and scoring jobs run — and `deno task score
 * --from-service` against that live service gives exactly the leaderboard's rows and the scored
 * events' stats.
 */
import assert from "node:assert/strict";
import { GammaMarketSource } from "../../actors/catalog/mod.ts";
import { isoAt } from "../../actors/kernel/mod.ts";
import { type ScorerOutput, scoreV1 } from "../../actors/scoring/mod.ts";
import { LeaseReplySchema } from "../../routes/validators/validators_api.ts";
import { LeaderboardSchema } from "../../routes/scoring/leaderboard_api.ts";
import { ScoredEventPage } from "../../routes/scoring/scored_events_api.ts";
import { ScoredPredictionPage } from "../../routes/scoring/scored_predictions_api.ts";
import { readScorerInput } from "../../scripts/score/score_from_service.ts";
import { adapterTest } from "../support/adapters.ts";
import { type FakeGamma, type RawGammaMarket, startFakeGamma } from "../support/fake_gamma.ts";
import { gammaMarket } from "../support/gamma_markets.ts";
import { runJobOnce } from "../support/jobs.ts";
import type { TestService } from "../support/test_service.ts";
import {
  agentCode,
  LEASE,
  type Loop,
  openLoop,
  signedInit,
  SUBMIT,
  testSigner,
  uploadAgent,
} from "../support/validator_loop.ts";
import { recordPrices } from "./job_fixtures.ts";

const VALIDATOR = testSigner("e2e-scoring-validator");
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** m0..m5 resolve (m5's last prediction comes late), m6 is voided, m7 is disputed, then resolved. */
const MARKETS = 8;

type Leased = NonNullable<ReturnType<typeof LeaseReplySchema.parse>["assignment"]>;

function marketId(index: number): string {
  return String(700_001 + index);
}

/** Open market `index`, ending 48 h after `nowMs`. */
function openMarket(index: number, nowMs: number): RawGammaMarket {
  const id = marketId(index);
  return gammaMarket({
    id,
    question: `Will scoring proof event ${index} happen?`,
    slug: `scoring-proof-${index}`,
    conditionId: `0x${id.padStart(64, "0")}`,
    clobTokenIds: JSON.stringify([`${id}01`, `${id}02`]),
    outcomePrices: JSON.stringify([String(0.4 + index * 0.02), String(0.6 - index * 0.02)]),
    endDate: isoAt(nowMs + 48 * HOUR),
  });
}

/** Market `index` closed at `closedAtMs`: settled with `prices`, or disputed. */
function closedMarket(
  index: number,
  nowMs: number,
  closedAtMs: number,
  prices: string[],
  status = "resolved",
) {
  return {
    ...openMarket(index, nowMs),
    closed: true,
    outcomePrices: JSON.stringify(prices),
    closedTime: isoAt(closedAtMs).replace("T", " ").replace(/\.\d{3}Z$/, "+00"),
    umaResolutionStatus: status,
    umaResolutionStatuses: status === "disputed" ? '["proposed", "disputed"]' : '["proposed"]',
  };
}

/** "Yes" wins the even markets, "No" the odd ones. */
function winnerPrices(index: number): string[] {
  return index % 2 === 0 ? ["1", "0"] : ["0", "1"];
}

async function ingestAndSync(loop: Loop): Promise<void> {
  const { service } = loop;
  await runJobOnce(service.catalog.ingestion, {
    leases: service.storage.jobLeases,
    nowMs: service.clock.now(),
  });
  await loop.sync();
}

async function leaseAll(service: TestService): Promise<Leased[]> {
  const leased: Leased[] = [];
  for (;;) {
    const response = await service.request(
      LEASE,
      signedInit(VALIDATOR, "GET", LEASE, { nowMs: service.clock.now() }),
    );
    const body = await response.json();
    assert.equal(response.status, 200, JSON.stringify(body));
    const reply = LeaseReplySchema.parse(body);
    if (reply.assignment === null) return leased;
    leased.push(reply.assignment);
  }
}

interface Plan {
  pYes: number;
  invalid?: boolean;
  probabilities?: [number, number];
}

async function submit(service: TestService, leased: Leased, plan: Plan): Promise<void> {
  service.clock.advance(1_000);
  const [yes, no] = leased.event.outcomes.map((outcome) => outcome.outcomeId) as [string, string];
  const [pYes, pNo] = plan.probabilities ?? [plan.pYes, Math.round((1 - plan.pYes) * 1000) / 1000];
  const body = JSON.stringify({
    agentPredictionId: leased.agentPredictionId,
    prediction: {
      schemaVersion: "1.0",
      submittedAt: isoAt(service.clock.now()),
      predictionType: "binary",
      predictedOutcomeId: plan.pYes >= 0.5 ? yes : no,
      confidence: Math.max(plan.pYes, 1 - plan.pYes),
      outcomeProbabilities: { [yes]: pYes, [no]: pNo },
      outcomePricesAtPrediction: { [yes]: 0.5, [no]: 0.5 },
      executionMetadata: { predictionIsInvalid: plan.invalid ?? false, runtimeMs: 900 },
    },
    reasoningTrace: { schemaVersion: "1.0", trace: { steps: [{ tool: "search" }] } },
  });
  const response = await service.request(
    SUBMIT,
    signedInit(VALIDATOR, "POST", SUBMIT, { nowMs: service.clock.now(), body }),
  );
  assert.equal(response.status, 200, await response.text());
}

/** Miner `m`'s probability of "yes" on market `e`: spread over 0.3..0.75. */
function pYes(m: number, e: number): number {
  return 0.3 + ((m * 7 + e * 3) % 10) / 20;
}

async function getJson(base: string, path: string): Promise<unknown> {
  const response = await fetch(`${base}${path}`);
  assert.equal(response.status, 200, path);
  return await response.json();
}

async function allScoredEvents(base: string) {
  const items = [];
  let cursor: string | null = null;
  do {
    const query: string = `?limit=2&miners=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = ScoredEventPage.parse(await getJson(base, `/v1/events/scored${query}`));
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return items;
}

function assertBoardMatches(board: ReturnType<typeof LeaderboardSchema.parse>, output: ScorerOutput) {
  assert.deepEqual(Object.keys(output.miners).toSorted(), board.neurons.map((n) => n.hotkey).toSorted());
  for (const neuron of board.neurons) {
    const mine = output.miners[neuron.hotkey]!;
    assert.equal(mine.uid, neuron.uid);
    assert.deepEqual(mine.scoring, neuron.scoring, `scoring of uid ${neuron.uid}`);
    assert.equal(mine.forecastingIncentive, neuron.forecastingIncentive);
    assert.equal(mine.forecastingAlphaPerDay, neuron.forecastingAlphaPerDay);
    assert.equal(mine.forecastingUsdPerDay, neuron.forecastingUsdPerDay);
  }
  assert.equal(output.forecastingBudgetAlphaPerDay, board.scoringMeta.forecastingBudgetAlphaPerDay);
}

/** Round one: every miner on every market; miner 1 invalid twice; miner 2 holds market 5 back. */
async function roundOne(service: TestService, hotkeys: string[]): Promise<Leased> {
  const leased = await leaseAll(service);
  assert.equal(leased.length, hotkeys.length * MARKETS, "every (miner, market) was leased");
  let held: Leased | undefined;
  for (const lease of leased) {
    const m = hotkeys.indexOf(lease.miner.hotkey);
    const e = Number(lease.event.sourceMarketId) - 700_001;
    if (m === 2 && e === 5) held = lease;
    else if (m === 1 && e === 0) await submit(service, lease, { pYes: pYes(m, e), invalid: true });
    else if (m === 1 && e === 1) await submit(service, lease, { pYes: 0.6, probabilities: [1.2, -0.2] });
    else await submit(service, lease, { pYes: pYes(m, e) });
  }
  return held!;
}

async function repredict(loop: Loop, hotkey: string): Promise<void> {
  const { service } = loop;
  await uploadAgent(service.storage, hotkey, agentCode("miner-0 v2"), service.clock.now());
  await loop.sync();
  const again = await leaseAll(service);
  assert.equal(again.length, MARKETS, "miner 0's new version gets every market again");
  for (const lease of again) {
    const e = Number(lease.event.sourceMarketId) - 700_001;
    if (e <= 1) await submit(service, lease, { pYes: e === 0 ? 0.9 : 0.15 });
  }
}

async function score(service: TestService): Promise<void> {
  await runJobOnce(service.scoring.job, { leases: service.storage.jobLeases, nowMs: service.clock.now() });
}

function settle(gamma: FakeGamma, startMs: number, closedAtMs: number, disputed: boolean): void {
  gamma.setMarkets(Array.from({ length: MARKETS }, (_, index) => {
    if (index === 6) return closedMarket(index, startMs, closedAtMs, ["0.5", "0.5"]);
    if (index === 7) {
      return closedMarket(index, startMs, closedAtMs, winnerPrices(7), disputed ? "disputed" : "resolved");
    }
    return closedMarket(index, startMs, closedAtMs - 10 * MINUTE, winnerPrices(index));
  }));
}

adapterTest(
  "score --from-service on a live service gives exactly the leaderboard's rows and the scored events' stats",
  async ({ storage }) => {
    const startMs = Date.now();
    await using gamma = startFakeGamma(
      Array.from({ length: MARKETS }, (_, index) => openMarket(index, startMs)),
    );
    const loop = await openLoop({
      validators: [VALIDATOR],
      miners: 3,
      events: 0,
      storage,
      marketSource: new GammaMarketSource({ baseUrl: gamma.url }),
    });
    await using service = loop.service;
    const hotkeys = loop.source.current.neurons.filter((n) => !n.validatorPermit).map((n) => n.hotkey);
    await ingestAndSync(loop);

    const held = await roundOne(service, hotkeys);
    service.clock.advance(MINUTE);
    await repredict(loop, hotkeys[0]!);

    // 30 minutes on: m0..m5 resolved 20 minutes in (early: they end in 48 h), m6 voided, m7 disputed.
    service.clock.advance(30 * MINUTE);
    settle(gamma, startMs, service.clock.now() - 5 * MINUTE, true);
    await ingestAndSync(loop);
    await submit(service, held, { pYes: 0.99 }); // after m5's resolution: late
    await score(service);
    const first = new Set((await storage.scores.listEvents({ limit: 100 })).map((e) => e.sourceMarketId));
    assert.deepEqual(
      [...first].toSorted(),
      [0, 1, 2, 3, 4, 5].map(marketId),
      "voided and disputed: not scored",
    );

    // m7's dispute settles; the next run scores it.
    service.clock.advance(10 * MINUTE);
    settle(gamma, startMs, service.clock.now() - 5 * MINUTE, false);
    await ingestAndSync(loop);
    await score(service);
    await recordPrices(
      storage,
      { taoUsd: 412.5, alphaTao: 0.0095315, minerAlphaPerDay: 2952 },
      service.clock.now(),
    );
    await service.prices.refresh();

    await using server = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen: () => {} },
      service.app.fetch,
    );
    const base = `http://127.0.0.1:${server.addr.port}`;
    const { input, notes } = await readScorerInput({
      base,
      signer: VALIDATOR,
      nowMs: () => service.clock.now(),
    });
    assert.deepEqual(notes, []);
    const output = scoreV1(input);

    const board = LeaderboardSchema.parse(await getJson(base, "/v1/leaderboard?limit=256"));
    assert.equal(board.count, 3);
    assertBoardMatches(board, output);
    const gates = board.neurons.map((
      n,
    ) => [n.uid, n.scoring.gate, n.scoring.validPreds, n.scoring.invalidPreds]);
    assert.deepEqual(gates.toSorted(), [[1, "pass", 7, 0], [2, "invalid_rate", 5, 2], [3, "pass", 6, 1]]);
    assert.ok(board.neurons.some((n) => n.forecastingIncentive > 0), "someone is paid");

    const scored = await allScoredEvents(base);
    assert.equal(scored.length, 7, "m0..m5 and m7");
    assert.deepEqual(Object.keys(output.events).toSorted(), scored.map((e) => e.eventId).toSorted());
    for (const event of scored) {
      const mine = output.events[event.eventId]!;
      assert.deepEqual(event.stats, mine.stats, `stats of ${event.sourceMarketId}`);
      assert.deepEqual(
        event.miners.map((row) => row.uid),
        mine.minerOrder,
        `rows of ${event.sourceMarketId}`,
      );
    }

    // The late row, the re-prediction and the invalid ones, as the feed carries them and the scorer judges them.
    const feed = ScoredPredictionPage.parse(
      await (await fetch(
        `${base}/v1/validators/scored-predictions?limit=200`,
        signedInit(VALIDATOR, "GET", "/v1/validators/scored-predictions?limit=200", {
          nowMs: service.clock.now(),
        }),
      )).json(),
    );
    assert.equal(feed.items.length, input.predictions.length);
    assert.equal(feed.items.length, 3 * 7 + 2, "three miners on seven scored markets, two re-predictions");
    const late = feed.items.find((row) => row.agentPredictionId === held.agentPredictionId)!;
    assert.deepEqual(late.predictionValidation.reasons, ["late_prediction"]);
    assert.deepEqual(output.predictions[held.agentPredictionId]!.reasons, ["late_prediction"]);
    const reasons = feed.items.flatMap((row) => row.predictionValidation.reasons).toSorted();
    assert.deepEqual(reasons, ["agent_reported_invalid", "late_prediction", "probability_out_of_range"]);
    for (const row of feed.items) {
      assert.deepEqual(output.predictions[row.agentPredictionId]!.reasons, row.predictionValidation.reasons);
    }
    const repredicted = feed.items.filter((row) => row.minerUid === 1 && row.sourceMarketId === marketId(0));
    assert.equal(repredicted.length, 2);
    const latest = repredicted.map((row) => row.predictedAt).toSorted().at(-1);
    assert.ok(repredicted.every((row) => row.minerLastPredictedAt === latest), "the re-prediction counts");
  },
);
