import assert from "node:assert/strict";
import type { EventRecord } from "../../storage/event_record.ts";
import { eventRecord, putEvents, resolved } from "../support/events.ts";
import { openTestService, type TestService } from "../support/test_service.ts";

const HOUR = 3_600_000;

interface ListBody {
  items: EventRecord[];
  nextCursor: string | null;
  meta: { computedAt: string; scorerVersion: string };
}

async function withCatalog(
  events: (now: number) => EventRecord[],
  fn: (service: TestService) => Promise<void>,
): Promise<void> {
  await using service = await openTestService();
  await putEvents(service.storage, events(service.clock.now()), service.clock.now());
  await service.catalog.view.refresh();
  await fn(service);
}

async function list(service: TestService, query: string): Promise<ListBody> {
  const response = await service.request(`/v1/events${query}`);
  assert.equal(response.status, 200, await response.clone().text());
  return await response.json();
}

async function ids(service: TestService, query: string): Promise<string[]> {
  return (await list(service, query)).items.map((event) => event.id);
}

async function expectBadRequest(service: TestService, query: string, field: string): Promise<void> {
  const response = await service.request(`/v1/events${query}`);
  assert.equal(response.status, 400, query);
  const body = await response.json();
  assert.equal(body.error.code, "invalid_request");
  assert.equal(body.requestId, response.headers.get("x-request-id"));
  const fields = body.error.details.fields.map((f: { field: string }) => f.field);
  assert.ok(fields.includes(field), `${query}: ${JSON.stringify(fields)}`);
}

Deno.test("default list returns live events only, by endDate then id, with meta", async () => {
  await withCatalog((now) => [
    eventRecord("e-b", now, { endsInHours: 10 }),
    eventRecord("e-a", now, { endsInHours: 10 }),
    eventRecord("e-c", now, { endsInHours: 5 }),
    eventRecord("e-ended", now, { endsInHours: -1 }),
  ], async (service) => {
    const body = await list(service, "");
    assert.deepEqual(body.items.map((e) => e.id), ["e-c", "e-a", "e-b"]);
    assert.equal(body.nextCursor, null);
    assert.equal(body.meta.scorerVersion, "1.0.0");
    assert.match(body.meta.computedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(await ids(service, "?includeEnded=1"), ["e-ended", "e-c", "e-a", "e-b"]);
  });
});

Deno.test("status filters, and resolved or voided lifts the live-only default", async () => {
  await withCatalog((now) => [
    eventRecord("live", now),
    resolved(eventRecord("won", now, { endsInHours: -5 }), now - HOUR),
    {
      ...eventRecord("void", now, { endsInHours: -5 }),
      resolution: {
        ...resolved(eventRecord("v", now), now).resolution,
        resolutionStatus: "voided",
        winningOutcomeId: null,
        winningOutcomeName: null,
      },
    },
  ], async (service) => {
    assert.deepEqual(await ids(service, "?status=resolved"), ["won"]);
    assert.deepEqual(await ids(service, "?status=voided"), ["void"]);
    assert.deepEqual(await ids(service, "?status=unresolved"), ["live"]);
    assert.deepEqual(await ids(service, "?hasResolution=1&includeEnded=1"), ["won"]);
    assert.deepEqual(await ids(service, "?hasResolution=0&includeEnded=1"), ["live"]);
    await expectBadRequest(service, "?status=resolved&includeEnded=0", "includeEnded");
    await expectBadRequest(service, "?status=voided&hasResolution=0", "hasResolution");
  });
});

Deno.test("resolvedSince needs sortBy=resolvedAt and keeps resolutions at or after it", async () => {
  await withCatalog((now) => [
    resolved(eventRecord("old", now, { endsInHours: -50 }), now - 48 * HOUR),
    resolved(eventRecord("new", now, { endsInHours: -5 }), now - HOUR),
    resolved(eventRecord("edge", now, { endsInHours: -5 }), now - 2 * HOUR),
  ], async (service) => {
    const since = new Date(service.clock.now() - 2 * HOUR).toISOString();
    await expectBadRequest(service, `?status=resolved&resolvedSince=${since}`, "resolvedSince");
    assert.deepEqual(await ids(service, `?status=resolved&sortBy=resolvedAt&resolvedSince=${since}`), [
      "edge",
      "new",
    ]);
    await expectBadRequest(service, "?sortBy=resolvedAt&resolvedSince=yesterday", "resolvedSince");
  });
});

Deno.test("sortBy orders ascending by dates and descending by volume and liquidity, id breaking ties", async () => {
  await withCatalog((now) => [
    eventRecord("a", now, {
      endsInHours: 30,
      volumeUsd: 500,
      liquidityUsd: 9_000,
      startDate: "2026-01-03T00:00:00.000Z",
    }),
    eventRecord("b", now, {
      endsInHours: 20,
      volumeUsd: 900,
      liquidityUsd: 9_000,
      startDate: "2026-01-01T00:00:00.000Z",
    }),
    eventRecord("c", now, {
      endsInHours: 10,
      volumeUsd: 500,
      liquidityUsd: 1_000,
      startDate: "2026-01-02T00:00:00.000Z",
    }),
  ], async (service) => {
    assert.deepEqual(await ids(service, "?sortBy=endDate"), ["c", "b", "a"]);
    assert.deepEqual(await ids(service, "?sortBy=startDate"), ["b", "c", "a"]);
    assert.deepEqual(await ids(service, "?sortBy=volume"), ["b", "a", "c"]);
    assert.deepEqual(await ids(service, "?sortBy=liquidity"), ["a", "b", "c"]);
  });
});

Deno.test("price bounds apply to every current outcome price", async () => {
  await withCatalog((now) => [
    eventRecord("mid", now, { currentOutcomePrices: { y: 0.45, n: 0.55 } }),
    eventRecord("skew", now, { currentOutcomePrices: { y: 0.05, n: 0.95 } }),
  ], async (service) => {
    assert.deepEqual(await ids(service, "?max_price=0.6"), ["mid"]);
    assert.deepEqual(await ids(service, "?min_price=0.1"), ["mid"]);
    assert.deepEqual(await ids(service, "?min_price=0.05&max_price=0.95"), ["mid", "skew"]);
    await expectBadRequest(service, "?max_price=1.5", "max_price");
    await expectBadRequest(service, "?min_price=0.7&max_price=0.2", "min_price");
  });
});

Deno.test("volume, liquidity, q, tagId and source filter the catalog", async () => {
  await withCatalog((now) => [
    eventRecord("x", now, {
      volumeUsd: 100,
      liquidityUsd: 50_000,
      tagsAtAdmission: [7],
      question: "Bitcoin above 100k?",
    }),
    eventRecord("y", now, {
      volumeUsd: 9_000,
      liquidityUsd: 2_000,
      tagsAtAdmission: [8],
      description: "About BITCOIN.",
    }),
    eventRecord("z", now, { volumeUsd: 9_000, liquidityUsd: 2_000, source: "other" }),
  ], async (service) => {
    assert.deepEqual(await ids(service, "?volume=9000"), ["x", "y", "z"].filter((id) => id !== "x"));
    assert.deepEqual(await ids(service, "?liquidity=10000"), ["x"]);
    assert.deepEqual(await ids(service, "?q=bitcoin"), ["x", "y"]);
    assert.deepEqual(await ids(service, "?tagId=8"), ["y"]);
    assert.deepEqual(await ids(service, "?source=other"), ["z"]);
  });
});

Deno.test("bad parameters get 400 with the error body naming the field", async () => {
  await withCatalog(() => [], async (service) => {
    await expectBadRequest(service, "?__proto__=1", "__proto__");
    await expectBadRequest(service, "?limit=2&constructor=x", "constructor");
    await expectBadRequest(service, "?limit=2&limit=3", "limit");
    await expectBadRequest(service, "?limit=0", "limit");
    await expectBadRequest(service, "?limit=201", "limit");
    await expectBadRequest(service, "?limit=abc", "limit");
    await expectBadRequest(service, "?format=xml", "format");
    await expectBadRequest(service, "?includeEnded=yes", "includeEnded");
    await expectBadRequest(service, "?sortBy=price", "sortBy");
    await expectBadRequest(service, "?tagId=1.5", "tagId");
    await expectBadRequest(service, "?cursor=garbage", "cursor");
    await expectBadRequest(service, "?tagId=0x10", "tagId");
    const huge = await service.request("/v1/events?tagId=99999999999999999999");
    assert.equal(huge.status, 400);
    assert.deepEqual((await huge.json()).error.details.fields, [
      { field: "tagId", problem: "must be at most 9007199254740991" },
    ]);
    const fraction = await service.request("/v1/events?tagId=1.5");
    assert.deepEqual((await fraction.json()).error.details.fields, [{
      field: "tagId",
      problem: "must be an integer",
    }]);
    await expectBadRequest(service, "?limit=1e2", "limit");
    await expectBadRequest(service, "?volume=Infinity", "volume");
    await expectBadRequest(service, "?limit=1&limit=500", "limit");
    await expectBadRequest(service, "?status=unresolved&hasResolution=1", "hasResolution");
    await expectBadRequest(service, "?status=voided&hasResolution=1", "hasResolution");
    const unknown = await service.request("/v1/events?sortby=volume");
    assert.equal(unknown.status, 400);
  });
});

Deno.test("walking every page returns each match once, in order, as of the first page, while prices change between pages", async () => {
  const count = 23;
  await withCatalog(
    (now) =>
      Array.from({ length: count }, (_, i) =>
        eventRecord(`p${String(i).padStart(2, "0")}`, now, {
          volumeUsd: 1_000 + (i % 5) * 100,
          currentOutcomePrices: { y: 0.3, n: 0.7 },
        })),
    async (service) => {
      const query = "?sortBy=volume&min_price=0.2&limit=4";
      const seen: string[] = [];
      let cursor: string | null = null;
      let page = 0;
      do {
        const body: ListBody = await list(
          service,
          cursor ? `${query}&cursor=${encodeURIComponent(cursor)}` : query,
        );
        seen.push(...body.items.map((e) => e.id));
        cursor = body.nextCursor;
        const all = (await list(service, "?limit=200&includeEnded=1")).items;
        const unseen = all.filter((e) => !seen.includes(e.id));
        const moved = unseen.map((e) => ({ ...e, currentOutcomePrices: { y: 0.1 + page / 100, n: 0.9 } }));
        await putEvents(service.storage, moved, service.clock.now());
        await service.catalog.view.refresh();
        page++;
      } while (cursor);
      assert.equal(seen.length, count);
      assert.equal(new Set(seen).size, count);
      const expected = Array.from(
        { length: count },
        (_, i) => ({ id: `p${String(i).padStart(2, "0")}`, v: 1_000 + (i % 5) * 100 }),
      )
        .toSorted((a, b) => b.v - a.v || (a.id < b.id ? -1 : 1)).map((e) => e.id);
      assert.deepEqual(seen, expected);
    },
  );
});

Deno.test("a cursor only works for the query it came from", async () => {
  await withCatalog(
    (now) => [eventRecord("a", now), eventRecord("b", now), eventRecord("c", now)],
    async (service) => {
      const first = await list(service, "?limit=1");
      assert.ok(first.nextCursor);
      const other = await service.request(`/v1/events?limit=1&sortBy=volume&cursor=${first.nextCursor}`);
      assert.equal(other.status, 400);
      assert.match((await other.json()).error.message, /another query/);
      const tampered = first.nextCursor.replace(/.$/, (c) => c === "A" ? "B" : "A");
      assert.equal((await service.request(`/v1/events?limit=1&cursor=${tampered}`)).status, 400);
      const next = await list(service, `?limit=1&format=json&cursor=${first.nextCursor}`);
      assert.deepEqual(next.items.map((e) => e.id), ["b"]);
    },
  );
});

Deno.test("format=csv returns one row per event with nested fields as JSON and the cursor in a header", async () => {
  await withCatalog(
    (now) => [
      eventRecord("a", now, { question: 'Say "hi", ok?', description: '=HYPERLINK("x")' }),
      eventRecord("b", now),
    ],
    async (service) => {
      const response = await service.request("/v1/events?format=csv&limit=1");
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type")!, /^text\/csv/);
      const cursor = response.headers.get("x-next-cursor");
      assert.ok(cursor);
      const [header, row, end] = (await response.text()).split("\r\n");
      assert.ok(header!.startsWith("id,source,sourceMarketId,question,"));
      assert.ok(row!.startsWith('a,polymarket,a,"Say ""hi"", ok?",'));
      assert.ok(row!.includes('"[{""outcomeId"":""a-yes"",""name"":""Yes""}'));
      assert.ok(row!.includes(`"'=HYPERLINK(""x"")"`), "text a spreadsheet would run is escaped");
      assert.equal(end, "");
      const last = await service.request(`/v1/events?format=csv&limit=1&cursor=${cursor}`);
      assert.equal(last.headers.get("x-next-cursor"), "");
    },
  );
});

Deno.test("random picks from the assignment pool: 24h to 7d to end, price band, no denied titles", async () => {
  await withCatalog((now) => [
    eventRecord("in-1", now, { endsInHours: 48 }),
    eventRecord("in-2", now, { endsInHours: 100 }),
    eventRecord("too-soon", now, { endsInHours: 12 }),
    eventRecord("too-late", now, { endsInHours: 24 * 8 }),
    eventRecord("skewed", now, { currentOutcomePrices: { y: 0.01, n: 0.99 } }),
    eventRecord("denied", now, { question: "Bitcoin Up or Down at 3pm?" }),
  ], async (service) => {
    const picks = new Set<string>();
    for (let seed = 0; seed < 6; seed++) {
      const response = await service.request(`/v1/events/random?seed=${seed}`);
      assert.equal(response.status, 200);
      picks.add((await response.json()).id);
    }
    assert.deepEqual([...picks].toSorted(), ["in-1", "in-2"]);
    const again = await (await service.request("/v1/events/random?seed=3")).json();
    assert.equal(again.id, "in-2");
    assert.equal((await service.request("/v1/events/random?seed=-1")).status, 400);
    assert.equal((await service.request("/v1/events/random?seed=999999999999999")).status, 200);
    const long = await service.request("/v1/events/random?seed=9007199254740991");
    assert.equal(long.status, 400);
    assert.deepEqual((await long.json()).error.details.fields, [
      { field: "seed", problem: "must be a non-negative integer of at most 15 digits" },
    ]);
  });
});

Deno.test("random answers 404 pool_empty when no event qualifies", async () => {
  await withCatalog((now) => [eventRecord("soon", now, { endsInHours: 2 })], async (service) => {
    const response = await service.request("/v1/events/random");
    assert.equal(response.status, 404);
    assert.equal((await response.json()).error.code, "pool_empty");
  });
});

Deno.test("once its snapshot has expired, a cursor continues from its position in the current catalog", async () => {
  await withCatalog(
    (now) => ["a", "b", "c", "d", "e"].map((id, i) => eventRecord(id, now, { endsInHours: 10 + i })),
    async (service) => {
      const first = await list(service, "?limit=2");
      assert.deepEqual(first.items.map((e) => e.id), ["a", "b"]);
      service.clock.advance(service.config.FGW_CURSOR_TTL_MS + 1);
      const c = (await list(service, "?limit=5")).items[2]!;
      const repriced = { ...c, currentOutcomePrices: { "c-yes": 0.9, "c-no": 0.1 } };
      await putEvents(service.storage, [repriced], service.clock.now());
      await service.catalog.view.refresh();
      const next = await list(service, `?limit=2&cursor=${first.nextCursor}`);
      assert.deepEqual(
        next.items.map((e) => e.id),
        ["c", "d"],
        "ordered from the cursor's position, no repeats",
      );
      assert.equal(next.items[0]!.currentOutcomePrices["c-yes"], 0.9, "read from the current catalog");
    },
  );
});
