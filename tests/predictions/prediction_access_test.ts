import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";
import { errorCode, issueKey, keyInit } from "../support/access.ts";
import { OPEN_ID, postJson, predictionWorld, RESOLVED_ID } from "./prediction_world.ts";

const HISTORY = `/v1/predictions/${OPEN_ID}/history`;

adapterTest("each prediction endpoint refuses a key without its scope (403)", async ({ storage }) => {
  const { service, keys } = await predictionWorld(storage);
  await using _ = service;
  const calls: [string, (key: string) => RequestInit, string[]][] = [
    [`/v1/predictions/${OPEN_ID}`, (key) => keyInit(key), [keys.write, keys.history, keys.billing]],
    ["/v1/predictions/query", (key) => postJson(key, { eventIds: [OPEN_ID] }), [
      keys.read,
      keys.history,
      keys.billing,
    ]],
    [HISTORY, (key) => keyInit(key), [keys.read, keys.write, keys.billing]],
  ];
  for (const [path, init, refused] of calls) {
    for (const key of refused) {
      const response = await service.request(path, init(key));
      assert.equal(response.status, 403, path);
      assert.equal(response.headers.get("x-ratelimit-limit"), "60");
      assert.equal(await errorCode(response), "insufficient_scope");
    }
    const anonymous = await service.request(path, { ...init(""), headers: {} });
    assert.equal(anonymous.status, 401, path);
  }
});

adapterTest(
  "over the key's rate the prediction endpoints answer 429 with Retry-After",
  async ({ storage }) => {
    const { service, orgId } = await predictionWorld(storage);
    await using _ = service;
    const scopes = ["predictions:read", "predictions:write", "history:read"];
    const { apiKey } = await issueKey(service.request, orgId, { scopes, rateLimitRpm: 3 });
    const calls = [
      () => service.request(`/v1/predictions/${OPEN_ID}`, keyInit(apiKey)),
      () => service.request("/v1/predictions/query", postJson(apiKey, { eventIds: [OPEN_ID] })),
      () => service.request(HISTORY, keyInit(apiKey)),
    ];
    for (const call of calls) assert.equal((await call()).status, 200);
    for (const call of calls) {
      const limited = await call();
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get("x-ratelimit-remaining"), "0");
      assert.ok(Number(limited.headers.get("retry-after")) >= 1);
      assert.equal(await errorCode(limited), "rate_limited");
    }
  },
);

adapterTest("a bad query body answers 400 naming the field", async ({ storage }) => {
  const { service, keys } = await predictionWorld(storage);
  await using _ = service;
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `polymarket-${1000 + i}`);
  const cases: [unknown, string][] = [
    [{ eventIds: [] }, "eventIds"],
    [{ eventIds: ids(101) }, "eventIds"],
    [{ eventIds: [OPEN_ID, RESOLVED_ID, OPEN_ID] }, "eventIds.2"],
    [{ eventIds: [OPEN_ID, "bad id"] }, "eventIds.1"],
    [{ eventIds: [OPEN_ID, 7] }, "eventIds.1"],
    [{ eventIds: [OPEN_ID], requestFresh: "yes" }, "requestFresh"],
    [{ eventIds: [OPEN_ID], extra: 1 }, "extra"],
    [{}, "eventIds"],
  ];
  for (const [body, field] of cases) {
    const response = await service.request("/v1/predictions/query", postJson(keys.write, body));
    const json = await response.json();
    assert.equal(response.status, 400, JSON.stringify(body));
    assert.equal(json.error.code, "invalid_request");
    assert.deepEqual(
      json.error.details.fields.map((f: { field: string }) => f.field),
      [field],
      JSON.stringify(body),
    );
  }
  const hundred = await service.request(
    "/v1/predictions/query",
    postJson(keys.write, { eventIds: ids(100) }),
  );
  assert.equal(hundred.status, 200);
  assert.equal((await hundred.json()).missing.length, 100);
});

adapterTest("a bad history query answers 400 naming the field", async ({ storage }) => {
  const { service, keys } = await predictionWorld(storage);
  await using _ = service;
  const cases: [string, string][] = [
    ["interval=5m", "interval"],
    ["from=yesterday", "from"],
    ["to=2026-13-01T00:00:00Z", "to"],
    ["from=2026-11-02T00:00:00.000Z&to=2026-11-01T00:00:00.000Z", "from"],
    ["from=2026-11-01T00:00:00.000Z&to=2026-11-01T00:00:00.000Z", "from"],
    ["from=2026-10-01T00:00:00.000Z&to=2026-11-01T00:00:01.000Z", "from"],
    ["interval=1d&from=2025-10-31T00:00:00.000Z&to=2026-11-01T00:00:01.000Z", "from"],
    ["interval=1h&interval=1d", "interval"],
    ["limit=3", "limit"],
  ];
  for (const [query, field] of cases) {
    const response = await service.request(`${HISTORY}?${query}`, keyInit(keys.history));
    const json = await response.json();
    assert.equal(response.status, 400, query);
    assert.deepEqual(json.error.details.fields.map((f: { field: string }) => f.field), [field], query);
  }
  const longest = "from=2026-10-01T00:00:00.000Z&to=2026-11-01T00:00:00.000Z";
  assert.equal(
    (await service.request(`${HISTORY}?${longest}`, keyInit(keys.history))).status,
    200,
    "31 days",
  );
});

adapterTest("requestFresh puts each found event's fresh-run outcome on its item", async ({ storage }) => {
  // The service's own fresh-run queue: the open event is in the pool but no miner has an agent; the
  // resolved one is out of the pool. (Queued and already_queued through HTTP: fresh_run_lease_test.ts.)
  const { service, keys } = await predictionWorld(storage);
  await using _ = service;
  const asked = { eventIds: [OPEN_ID, "polymarket-404", RESOLVED_ID], requestFresh: true };
  const response = await service.request("/v1/predictions/query", postJson(keys.write, asked));
  const first = await response.json();
  assert.equal(response.status, 200, JSON.stringify(first));
  assert.deepEqual(first.items.map((item: { eventId: string }) => item.eventId), [OPEN_ID, RESOLVED_ID]);
  assert.deepEqual(first.items.map((item: { freshRun: unknown }) => item.freshRun), [
    { status: "refused", reason: "no_eligible_agents" },
    { status: "refused", reason: "not_in_pool" },
  ]);
  assert.deepEqual(first.missing, ["polymarket-404"]);
  const plain =
    await (await service.request("/v1/predictions/query", postJson(keys.write, { eventIds: [OPEN_ID] })))
      .json();
  assert.equal("freshRun" in plain.items[0], false, "no fresh-run outcome without requestFresh");
});
