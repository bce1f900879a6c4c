import assert from "node:assert/strict";
import { EventDetailSchema } from "../../routes/catalog/events_api.ts";
import { minerHotkey } from "../support/assignments.ts";
import {
  BASE,
  CONSENSUS_YES,
  DAY,
  eventWorld,
  HOUR,
  NOW,
  OPEN,
  RESOLVED_AT,
  SCORED,
  yesPriceAt,
} from "../pages/event_world.ts";

const iso = (ms: number) => new Date(ms).toISOString();

Deno.test("an open event: the event as /v1/events lists it, its market history of the last 7 days, no consensus and no miners", async () => {
  await using service = await eventWorld();
  const response = await service.request(`/v1/events/${OPEN.id}`);
  assert.equal(response.status, 200);
  const text = await response.text();
  const body = EventDetailSchema.strict().parse(JSON.parse(text));
  const listed = await (await service.request("/v1/events?includeEnded=1&limit=200")).json();
  assert.deepEqual(body.event, listed.items.find((e: { id: string }) => e.id === OPEN.id));
  assert.deepEqual(body.history.market.map((p) => [p.at, p.prices[OPEN.outcomes[0]!.outcomeId]]), [
    [iso(BASE + 60 * HOUR), yesPriceAt(60)],
    [iso(BASE + 61 * HOUR), yesPriceAt(61)],
  ]);
  assert.deepEqual([body.history.from, body.history.to], [iso(NOW - 7 * DAY), iso(NOW)]);
  assert.equal(body.history.consensus, null);
  assert.equal(body.scored, null);
  // Neither the consensus (0.777) nor uid 0's forecast (0.66) nor any miner is in the answer.
  assert.doesNotMatch(text, /0\.777|0\.223|0\.66|"forecast"|"contributors"|"miners"|"hotkey"/);
});

Deno.test("a resolved event: its consensus history up to the resolution and every miner's scored forecast", async () => {
  await using service = await eventWorld();
  const body = EventDetailSchema.strict().parse(
    await (await service.request(`/v1/events/${SCORED.id}`)).json(),
  );
  const hours = [0, 1, 2];
  assert.deepEqual([body.history.from, body.history.to], [iso(RESOLVED_AT - 7 * DAY), iso(RESOLVED_AT)]);
  assert.deepEqual(body.history.market.map((p) => p.at), hours.map((h) => iso(BASE + h * HOUR)));
  assert.deepEqual(
    body.history.consensus?.map((p) => [p.at, p.forecast?.[SCORED.outcomes[0]!.outcomeId], p.contributors]),
    hours.map((h) => [iso(BASE + h * HOUR), CONSENSUS_YES, 2]),
  );
  assert.equal(body.scored?.winningOutcome.name, "Yes");
  assert.deepEqual(
    body.scored?.miners.map((m) => [m.uid, m.hotkey, m.pWin, m.brier]),
    [[2, minerHotkey(2), 0.9, 0.01], [0, minerHotkey(0), 0.7, 0.09], [1, minerHotkey(1), 0.2, 0.64]],
  );
  const listed = await (await service.request("/v1/events/scored?miners=50")).json();
  assert.deepEqual(body.scored, listed.items.find((item: { eventId: string }) => item.eventId === SCORED.id));
});

Deno.test("an unknown or impossible event id is 404; a query parameter is 400 naming it", async () => {
  await using service = await eventWorld();
  for (const id of ["polymarket-999", "no%20such", "x".repeat(300)]) {
    const response = await service.request(`/v1/events/${id}`);
    assert.equal(response.status, 404, id);
    assert.equal((await response.json()).error.code, "not_found");
  }
  const response = await service.request(`/v1/events/${OPEN.id}?history=all`);
  assert.equal(response.status, 400);
  assert.deepEqual((await response.json()).error.details.fields.map((f: { field: string }) => f.field), [
    "history",
  ]);
});

Deno.test("/v1/events/random and /v1/events/scored are not taken for event ids", async () => {
  await using service = await eventWorld();
  assert.ok("items" in await (await service.request("/v1/events/scored")).json());
  const random = await service.request("/v1/events/random");
  const picked = await random.json();
  assert.ok(
    random.status === 200 ? "outcomes" in picked : picked.error.code === "pool_empty",
    String(random.status),
  );
});
