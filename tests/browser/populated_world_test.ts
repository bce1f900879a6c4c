/**
 * The populated data set the browser tests and the screenshots use (tests/support/populated/):
 * what it holds, seen through the public JSON routes, and that it is the same on every build.
 */
import assert from "node:assert/strict";
import { DAY_MS } from "../../actors/kernel/mod.ts";
import { openPopulatedService, WORLD_NOW_MS, worldIds } from "../support/populated/populated_service.ts";
import type { TestService } from "../support/test_service.ts";

interface BoardRow {
  uid: number;
  hotkey: string;
  forecastingIncentive: number;
  scoring: { score: number; gate: string; validPreds: number; invalidPreds: number };
}

async function getJson(service: TestService, path: string): Promise<unknown> {
  const response = await service.request(path);
  assert.equal(response.status, 200, `GET ${path}`);
  return await response.json();
}

/** Every scored event, page by page. */
async function scoredEvents(service: TestService): Promise<{ eventId: string; stats: { scored: number } }[]> {
  const events = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const page = await getJson(service, `/v1/events/scored?limit=25${query}`) as {
      items: { eventId: string; stats: { scored: number } }[];
      nextCursor: string | null;
    };
    events.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return events;
}

/** What the public routes serve of the world (compared between two builds). */
async function served(service: TestService) {
  const ids = worldIds();
  return {
    board: await getJson(service, "/v1/leaderboard?limit=256"),
    scored: await scoredEvents(service),
    events: await getJson(service, "/v1/events?includeEnded=1&limit=100"),
    history: await Promise.all(
      [ids.resolvedEvents[0]!, ids.openEvents[0]!, ids.multiOutcomeEvent].map((id) =>
        service.storage.forecastHistory.listPoints(id, { fromMs: 0, toMs: WORLD_NOW_MS })
      ),
    ),
  };
}

Deno.test("the populated data set has a board with every gate, scored events, open markets and history, the same on every build", async () => {
  const ids = worldIds();
  let first: Awaited<ReturnType<typeof served>>;
  {
    await using service = await openPopulatedService();
    first = await served(service);
    const board = first.board as { stale: boolean; scoringMeta: { computedAt: string }; neurons: BoardRow[] };
    assert.equal(board.stale, false);
    assert.equal(board.scoringMeta.computedAt, new Date(WORLD_NOW_MS).toISOString());
    const gates = board.neurons.map((n) => [n.uid, n.scoring.gate]).toSorted((a, b) =>
      Number(a[0]) - Number(b[0])
    );
    assert.deepEqual(gates, [
      [1, "pass"],
      [2, "pass"],
      [3, "pass"],
      [4, "pass"],
      [5, "pass"],
      [6, "invalid_rate"],
      [7, "min_predictions"],
      [8, "no_predictions"],
    ]);
    const score = (uid: number) => board.neurons.find((n) => n.uid === uid)!.scoring.score;
    assert.ok(score(1) > score(2) && score(2) > 0, "the informed miner first, the shrinker second");
    assert.deepEqual([3, 4, 5, 6, 7, 8].map(score), [0, 0, 0, 0, 0, 0]);
    assert.equal(board.neurons.find((n) => n.uid === 1)!.hotkey, ids.topMiner);
    const paid = board.neurons.reduce((sum, n) => sum + n.forecastingIncentive, 0);
    assert.ok(Math.abs(paid - 1) < 1e-5, `incentives sum to ${paid}`);

    assert.equal(first.scored.length, ids.resolvedEvents.length);
    assert.ok(first.scored.every((event) => event.stats.scored >= 5), "every scored event has its miners");
    const all = first.events as { items: { id: string; resolution: { resolutionStatus: string } }[] };
    const statuses = Object.groupBy(all.items, (event) => event.resolution.resolutionStatus);
    assert.deepEqual([statuses.resolved?.length, statuses.voided?.length, statuses.unresolved?.length], [
      36,
      1,
      23,
    ]);

    const [resolvedHistory, openHistory, multiHistory] = first.history;
    for (const points of [resolvedHistory!, openHistory!, multiHistory!]) {
      assert.ok(points.length >= 4, `${points[0]?.eventId}: ${points.length} history points`);
      // Before the first prediction there is no consensus yet.
      assert.ok(points.filter((point) => point.forecast !== null).length >= 3, "a consensus over time");
      assert.ok(points.at(-1)!.forecast !== null, "a consensus at the last point");
      assert.ok(new Set(points.map((point) => JSON.stringify(point.market))).size > 1, "the market moved");
    }
    assert.ok(openHistory!.at(-1)!.atMs > WORLD_NOW_MS - DAY_MS, "an open market's history runs to now");
    assert.equal(Object.keys(multiHistory![0]!.market).length > 2, true);
    const versions = await service.storage.agents.listVersions(ids.topMiner);
    assert.equal(versions.length, 2, "the informed miner uploaded a second agent version");
  }
  await using again = await openPopulatedService();
  assert.deepEqual(await served(again), first);
});
