import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { scoredEventsQuerySchema } from "../../routes/scoring/scored_events_api.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { minerHotkey } from "../support/assignments.ts";
import { runJobOnce } from "../support/jobs.ts";
import { openTestService, type TestService } from "../support/test_service.ts";
import { BASE, DAY, storeFiveResolvedEvents, syncMetagraph } from "../scoring/job_fixtures.ts";
import { browse, formFields, HTML, labelledIds, pairs, submission } from "./html_form.ts";

const NOW = BASE + 3 * DAY;

/** Five events scored for uids 0 (said 0.7) and 1 (said 0.5), resolved together. */
async function scoredWorld(): Promise<TestService> {
  const storage = await openKvStorage(":memory:");
  await storeFiveResolvedEvents(storage);
  await syncMetagraph(storage, [0, 1], { syncedAtMs: NOW });
  const service = await openTestService({ storage, clock: new ManualClock(NOW) });
  await runJobOnce(service.scoring.job, { leases: storage.jobLeases, nowMs: NOW });
  await service.metagraph.view.refresh();
  return service;
}

const sectionIds = (html: string) =>
  [...html.matchAll(/<section class="scored-event" aria-labelledby="scored-([^"]+)">/g)].map((m) => m[1]!);
const nextLink = (html: string) => html.match(/<a href="([^"]+)" rel="next">/)?.[1]?.replaceAll("&amp;", "&");

Deno.test("the scored form has one labelled field per query parameter of GET /v1/events/scored but the cursor, and round-trips", async () => {
  await using service = await scoredWorld();
  const query = "?miners=3&uid=0&limit=2";
  const html = await (await service.request(`/scored${query}`, { headers: HTML })).text();
  const fields = formFields(html, "/scored");
  const expected = Object.keys(scoredEventsQuerySchema.shape).filter((name) => name !== "cursor");
  assert.deepEqual(fields.map((f) => f.name).toSorted(), expected.toSorted());
  for (const field of fields) assert.ok(field.id && labelledIds(html).includes(field.id), field.name);
  assert.deepEqual(
    fields.filter((f) => f.value !== "").map((f) => `${f.name}=${f.value}`).toSorted(),
    pairs(query),
  );
  const sent = await browse(service, `/scored${submission(fields)}`);
  assert.equal(sent.response.status, 200);
  assert.deepEqual(pairs(sent.path), pairs(query));
});

Deno.test("a filter submitted through the scored form lists the same events as /v1/events/scored, page after page", async () => {
  await using service = await scoredWorld();
  const fields = formFields(await (await service.request("/scored", { headers: HTML })).text(), "/scored");
  let page = await browse(
    service,
    `/scored${submission(fields, { minerHotkey: minerHotkey(1), limit: "2" })}`,
  );
  const query = page.path.slice("/scored".length);
  const shown: string[] = [];
  for (;;) {
    assert.equal(page.response.status, 200);
    const html = await page.response.text();
    shown.push(...sectionIds(html));
    const next = nextLink(html);
    if (!next) break;
    page = await browse(service, next);
  }
  const listed: string[] = [];
  let cursor: string | null = null;
  do {
    const search: string = cursor === null ? query : `${query}&cursor=${encodeURIComponent(cursor)}`;
    const body: { items: { eventId: string }[]; nextCursor: string | null } =
      await (await service.request(`/v1/events/scored${search}`)).json();
    listed.push(...body.items.map((item) => item.eventId));
    cursor = body.nextCursor;
  } while (cursor !== null);
  assert.equal(shown.length, 5);
  assert.deepEqual(shown, listed);
});

Deno.test("each scored event shows its stats and its miner rows, linked to the event's and the miner's pages", async () => {
  await using service = await scoredWorld();
  const html = await (await service.request("/scored?limit=1", { headers: HTML })).text();
  const [id] = sectionIds(html);
  assert.match(html, new RegExp(`<h2 id="scored-${id}"><a href="/events/${id}">`));
  assert.match(html, /Yes won \(market price at admission 0.400\)\. 2 scored, 2 valid; mean Brier 0.170/);
  const rows = [...html.matchAll(/<tr><td class="num">(\d+)<\/td><td><a href="\/miners\/([^"]+)"/g)]
    .map((m) => [Number(m[1]), m[2]]);
  assert.deepEqual(rows, [[0, minerHotkey(0)], [1, minerHotkey(1)]]);
});

Deno.test("a bad scored parameter is a 400 page naming it, as GET /v1/events/scored names it", async () => {
  await using service = await scoredWorld();
  for (const [query, field] of [["?limit=26", "limit"], [`?uid=1&minerHotkey=${minerHotkey(1)}`, "uid"]]) {
    const page = await service.request(`/scored${query}`, { headers: HTML });
    assert.equal(page.status, 400, query);
    assert.match(await page.text(), new RegExp(`<code>${field}</code>`));
    const api = await (await service.request(`/v1/events/scored${query}`)).json();
    assert.deepEqual(api.error.details.fields.map((f: { field: string }) => f.field), [field]);
  }
});

Deno.test("no scored event yet: the page says why and what to run", async () => {
  await using service = await openTestService({});
  const html = await (await service.request("/scored", { headers: HTML })).text();
  assert.match(html, /No event is scored yet/);
  assert.match(html, /task demo/);
});
