import assert from "node:assert/strict";
import { eventsQuerySchema } from "../../routes/catalog/events_query.ts";
import { eventRecord, putEvents, resolved } from "../support/events.ts";
import { openTestService, type TestService } from "../support/test_service.ts";
import { browse, formFields, HTML, labelledIds, pairs, submission } from "./html_form.ts";

/** Every parameter of `GET /v1/events` given, in a combination the route accepts. */
const FULL_QUERY = "?q=" + encodeURIComponent(`bitcoin & "eth" <x>`) +
  "&status=resolved&hasResolution=1&includeEnded=1&sortBy=resolvedAt&resolvedSince=2026-11-01T00:00:00Z" +
  "&min_price=0.1&max_price=0.9&volume=100.5&liquidity=10&tagId=21&source=polymarket&limit=5&format=json";

/** Eight live events; the five whose question says "alpha" end first to last as alpha-1..5. */
async function catalog(): Promise<TestService> {
  const service = await openTestService({});
  const now = service.clock.now();
  const events = [1, 2, 3, 4, 5, 6, 7, 8].map((n) =>
    eventRecord(`e-${n}`, now, {
      endsInHours: 24 + n,
      question: n % 2 === 0 || n === 7 ? `Will beta ${n} happen?` : `Will alpha ${n} happen?`,
      volumeUsd: 1_000 * n,
    })
  );
  await putEvents(service.storage, [...events, resolved(eventRecord("e-done", now), now - 3_600_000)], now);
  await service.catalog.view.refresh();
  return service;
}

const rowIds = (html: string) => [...html.matchAll(/<tr data-event-id="([^"]+)">/g)].map((m) => m[1]!);
const nextLink = (html: string) => html.match(/<a href="([^"]+)" rel="next">/)?.[1]?.replaceAll("&amp;", "&");

Deno.test("the catalog form has one labelled field per query parameter of GET /v1/events, the cursor aside", async () => {
  await using service = await catalog();
  const expected = Object.keys(eventsQuerySchema.shape).filter((name) => name !== "cursor");
  for (const query of ["", FULL_QUERY]) {
    const html = await (await service.request(`/events${query}`, { headers: HTML })).text();
    const fields = formFields(html, "/events");
    assert.deepEqual(fields.map((f) => f.name).toSorted(), expected.toSorted());
    const labelled = labelledIds(html);
    for (const field of fields) {
      assert.ok(field.id && labelled.includes(field.id), `${field.name} has a label`);
    }
  }
});

Deno.test("the catalog form round-trips: each field shows the value asked for, and sending it asks the same query", async () => {
  await using service = await catalog();
  const html = await (await service.request(`/events${FULL_QUERY}`, { headers: HTML })).text();
  const fields = formFields(html, "/events");
  assert.deepEqual(
    fields.map((f) => `${f.name}=${f.value}`).toSorted(),
    pairs(FULL_QUERY),
  );
  const sent = await browse(service, `/events${submission(fields)}`);
  assert.equal(sent.response.status, 200);
  assert.deepEqual(pairs(sent.path), pairs(FULL_QUERY));
});

Deno.test("the empty fields a form sends are left out of the URL (303), so they trip no validation", async () => {
  await using service = await catalog();
  const fields = formFields(await (await service.request("/events", { headers: HTML })).text(), "/events");
  assert.ok(fields.every((f) => f.value === ""), "a page without parameters has every field empty");
  const plain = await service.request(`/events${submission(fields)}`, { headers: HTML });
  assert.equal(plain.status, 303);
  assert.equal(plain.headers.get("location"), "/events");
  const one = await browse(service, `/events${submission(fields, { q: "alpha", sortBy: "volume" })}`);
  assert.equal(one.path, "/events?q=alpha&sortBy=volume");
  assert.equal(one.response.status, 200);
});

Deno.test("a filter submitted through the form lists the same events as /v1/events with that query, page after page", async () => {
  await using service = await catalog();
  const fields = formFields(await (await service.request("/events", { headers: HTML })).text(), "/events");
  let page = await browse(service, `/events${submission(fields, { q: "alpha", limit: "2" })}`);
  const query = page.path.slice("/events".length);
  const shown: string[] = [];
  let pages = 0;
  for (;;) {
    assert.equal(page.response.status, 200);
    const html = await page.response.text();
    shown.push(...rowIds(html));
    pages++;
    const next = nextLink(html);
    if (!next) break;
    page = await browse(service, next);
  }
  const listed: string[] = [];
  let cursor: string | null = null;
  do {
    const search: string = cursor === null ? query : `${query}&cursor=${encodeURIComponent(cursor)}`;
    const body: { items: { id: string }[]; nextCursor: string | null } =
      await (await service.request(`/v1/events${search}`)).json();
    listed.push(...body.items.map((item) => item.id));
    cursor = body.nextCursor;
  } while (cursor !== null);
  assert.deepEqual(shown, listed);
  assert.deepEqual(shown, ["e-1", "e-3", "e-5"]);
  assert.equal(pages, 2, "more than one page");
});

Deno.test("the events table: the question links to the event's page, then prices, end, liquidity, volume and status", async () => {
  await using service = await catalog();
  const html = await (await service.request("/events?q=alpha%201&includeEnded=1", { headers: HTML })).text();
  const row = html.match(/<tr data-event-id="e-1">([\s\S]*?)<\/tr>/)?.[1] ?? "";
  assert.match(row, /<a href="\/events\/e-1">Will alpha 1 happen\?<\/a>/);
  assert.match(
    row,
    /<li>Yes <span class="num">0.400<\/span><\/li><li>No <span class="num">0.600<\/span><\/li>/,
  );
  assert.match(row, /<time datetime="2026-11-21T13:00:00.000Z">2026-11-21 13:00 UTC<\/time>/);
  assert.match(row, /<td class="num">\$5,000.00<\/td><td class="num">\$1,000.00<\/td><td>Unresolved<\/td>/);
  assert.match(html, /<a href="\/v1\/events\?q=alpha%201&amp;includeEnded=1">JSON<\/a>/);
  const settled = await (await service.request("/events?status=resolved", { headers: HTML })).text();
  assert.deepEqual(rowIds(settled), ["e-done"]);
  assert.match(settled, /<td>Resolved: Yes<\/td>/);
});

Deno.test("a bad parameter is a 400 page naming it (the JSON error body for a JSON client), as on GET /v1/events", async () => {
  await using service = await catalog();
  const cases: [string, string][] = [
    ["?limit=0", "limit"],
    ["?min_price=0x1", "min_price"],
    ["?status=resolved&includeEnded=0", "includeEnded"],
    ["?resolvedSince=2026-11-01T00:00:00Z", "resolvedSince"],
    ["?colour=red", "colour"],
    ["?limit=1&limit=2", "limit"],
    ["?cursor=forged", "cursor"],
  ];
  for (const [query, field] of cases) {
    const page = await service.request(`/events${query}`, { headers: HTML });
    assert.equal(page.status, 400, query);
    assert.match(await page.text(), new RegExp(`<code>${field}</code>`), query);
    const api = await (await service.request(`/v1/events${query}`)).json();
    const json = await (await service.request(`/events${query}`, { headers: { accept: "application/json" } }))
      .json();
    assert.deepEqual(json.error.details, api.error.details, query);
  }
});

Deno.test("an empty catalog says why it is empty and what to run", async () => {
  await using service = await openTestService({});
  const html = await (await service.request("/events", { headers: HTML })).text();
  assert.match(html, /The catalog has no live event yet/);
  assert.match(html, /task demo/);
  const filtered = await (await service.request("/events?q=zzz", { headers: HTML })).text();
  assert.match(filtered, /No event matches these filters/);
});

Deno.test("the page reads the JSON route's cached page: within FGW_EVENTS_CACHE_MS both list what the first read listed", async () => {
  await using service = await openTestService({ env: { FGW_EVENTS_CACHE_MS: "1000" } });
  const now = service.clock.now();
  const soon = eventRecord("e-soon", now, { endsInHours: 0.5 / 3_600 });
  await putEvents(service.storage, [soon, eventRecord("e-later", now, { endsInHours: 5 })], now);
  await service.catalog.view.refresh();
  const listed = await (await service.request("/v1/events?limit=10")).json();
  assert.deepEqual(listed.items.map((e: { id: string }) => e.id), ["e-soon", "e-later"]);
  service.clock.advance(600); // e-soon has ended; the page read 0.6 s ago is still the one served
  const html = await (await service.request("/events?limit=10", { headers: HTML })).text();
  assert.deepEqual(rowIds(html), ["e-soon", "e-later"]);
  service.clock.advance(500);
  assert.deepEqual(rowIds(await (await service.request("/events?limit=10", { headers: HTML })).text()), [
    "e-later",
  ]);
});

Deno.test('a parameter without a name is not dropped with the empty ones: it is refused, naming the field ""', async () => {
  await using service = await catalog();
  const answer = await browse(service, "/events?q=&=x&limit");
  assert.equal(answer.path, "/events?=x");
  assert.equal(answer.response.status, 400);
  assert.match(await answer.response.text(), /<code><\/code>: Unknown field &quot;&quot;/);
});
