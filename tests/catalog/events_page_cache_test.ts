/** The catalog's page cache (FGW_EVENTS_CACHE_MS): per query string and snapshot, then rendered again. */
import assert from "node:assert/strict";
import { eventRecord, putEvents } from "../support/events.ts";
import { openTestService, type TestService } from "../support/test_service.ts";

async function ids(service: TestService, query: string): Promise<string[]> {
  const response = await service.request(`/v1/events${query}`);
  assert.equal(response.status, 200);
  return (await response.json()).items.map((event: { id: string }) => event.id);
}

Deno.test("a page is reused for FGW_EVENTS_CACHE_MS per query string, then rendered again", async () => {
  await using service = await openTestService({ env: { FGW_EVENTS_CACHE_MS: "1000" } });
  const now = service.clock.now();
  const soon = eventRecord("e-soon", now, { endsInHours: 0.5 / 3_600 });
  await putEvents(service.storage, [soon, eventRecord("e-later", now, { endsInHours: 5 })], now);
  await service.catalog.view.refresh();
  assert.deepEqual(await ids(service, ""), ["e-soon", "e-later"]);
  service.clock.advance(600);
  assert.deepEqual(await ids(service, ""), ["e-soon", "e-later"], "the same page within 1 s");
  assert.deepEqual(await ids(service, "?limit=5"), ["e-later"], "another query string renders anew");
  assert.deepEqual(await ids(service, ""), ["e-soon", "e-later"], "and leaves the first page cached");
  service.clock.advance(500);
  assert.deepEqual(await ids(service, ""), ["e-later"], "rendered again after 1 s: e-soon has ended");
});
