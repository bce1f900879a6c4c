import assert from "node:assert/strict";
import type { EventRecord } from "../../storage/event_record.ts";
import { eventRecord, putEvents } from "../support/events.ts";
import { openTestService, type TestService } from "../support/test_service.ts";

async function withCatalog(
  events: (now: number) => EventRecord[],
  fn: (service: TestService) => Promise<void>,
): Promise<void> {
  await using service = await openTestService();
  await putEvents(service.storage, events(service.clock.now()), service.clock.now());
  await service.catalog.view.refresh();
  await fn(service);
}

async function pageText(service: TestService, query: string): Promise<string> {
  const response = await service.request(`/v1/events${query}`);
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return text;
}

/** What `JSON.stringify` writes for a page of `ids` (the records as storage holds them). */
async function stringified(service: TestService, ids: string[], nextCursor: string | null): Promise<string> {
  const items = await Promise.all(ids.map(async (id) => (await service.storage.events.get(id))!.event));
  const computedAt = new Date(service.catalog.view.current().computedAtMs).toISOString();
  return JSON.stringify({ items, nextCursor, meta: { computedAt, scorerVersion: "1.0.0" } });
}

async function fieldsOf400(service: TestService, query: string): Promise<string[]> {
  const response = await service.request(`/v1/events${query}`);
  const body = await response.json();
  assert.equal(response.status, 400, JSON.stringify(body));
  return body.error.details.fields.map((entry: { field: string }) => entry.field);
}

Deno.test("a JSON page is byte for byte JSON.stringify of its items, next cursor and meta", async () => {
  await withCatalog((now) => [
    eventRecord("u1", now, { question: "Ünïcode “quotes” and 🎲?", volumeUsd: 3_000 }),
    eventRecord("u2", now, { description: 'Back\\slash, "quote", tab\t, line\nbreak', volumeUsd: 2_000 }),
    eventRecord("u3", now, { volumeUsd: 1_000, tagsAtAdmission: [] }),
  ], async (service) => {
    const query = "?sortBy=volume&min_price=0.2&limit=2";
    const first = await pageText(service, query);
    const cursor = JSON.parse(first).nextCursor;
    assert.ok(cursor);
    assert.equal(first, await stringified(service, ["u1", "u2"], cursor));
    const last = await pageText(service, `${query}&cursor=${encodeURIComponent(cursor)}`);
    assert.equal(last, await stringified(service, ["u3"], null));
    assert.equal(await pageText(service, "?q=matches-nothing"), await stringified(service, [], null));
  });
});

Deno.test("an event with no current price is outside every price bound, and listed without one", async () => {
  await withCatalog((now) => [
    eventRecord("priced", now, { currentOutcomePrices: { y: 0.5, n: 0.5 } }),
    eventRecord("unpriced", now, { currentOutcomePrices: {} }),
  ], async (service) => {
    const ids = async (query: string) =>
      JSON.parse(await pageText(service, query)).items.map((e: EventRecord) => e.id);
    assert.deepEqual(await ids(""), ["priced", "unpriced"]);
    assert.deepEqual(await ids("?min_price=0"), ["priced"]);
    assert.deepEqual(await ids("?max_price=1"), ["priced"]);
  });
});

Deno.test("a query asked before still has its cursor and every other parameter checked", async () => {
  await withCatalog(
    (now) => [eventRecord("a", now), eventRecord("b", now), eventRecord("c", now)],
    async (service) => {
      const cursor = JSON.parse(await pageText(service, "?limit=1")).nextCursor;
      for (let round = 0; round < 2; round++) {
        assert.deepEqual(await fieldsOf400(service, "?limit=1&cursor="), ["cursor"]);
        assert.deepEqual(await fieldsOf400(service, `?limit=1&cursor=${"A".repeat(2_049)}`), ["cursor"]);
        assert.deepEqual(await fieldsOf400(service, "?limit=1&cursor=garbled"), ["cursor"]);
        assert.deepEqual(await fieldsOf400(service, "?limit=1&bogus=1"), ["bogus"]);
        assert.deepEqual(await fieldsOf400(service, "?limit=1&limit=2"), ["limit"]);
        assert.deepEqual(await fieldsOf400(service, `?limit=1&sortBy=volume&cursor=${cursor}`), ["cursor"]);
        const second = JSON.parse(await pageText(service, `?limit=1&cursor=${cursor}`));
        assert.deepEqual(second.items.map((e: EventRecord) => e.id), ["b"]);
        const csv = await service.request(`/v1/events?limit=1&format=csv&cursor=${cursor}`);
        assert.equal(csv.status, 200);
        assert.match((await csv.text()).split("\r\n")[1]!, /^b,/);
      }
    },
  );
});
