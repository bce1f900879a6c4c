import assert from "node:assert/strict";
import { createOrg, errorCode, issueKey, keyInit } from "../support/access.ts";
import { callAtSettles, debitsPerDay, SETTLES } from "../support/usage_settles.ts";
import { ECHO_CALL, type GatewayWorld, gatewayWorld } from "../gateway/gateway_service.ts";

const T0 = Date.UTC(2026, 10, 20, 12);
function usage(w: GatewayWorld, query: string, apiKey = w.apiKey): Promise<Response> {
  return w.service.request(`/v1/usage?${query}`, keyInit(apiKey));
}

Deno.test("GET /v1/usage sums each local day to the ledger's debits of that day, in zones of :30 and :45", async () => {
  await using w = await gatewayWorld();
  await callAtSettles(w);
  for (const tz of ["UTC", "Asia/Kolkata", "Asia/Kathmandu", "America/St_Johns"]) {
    const response = await usage(w, `from=2026-11-19&to=2026-11-22&tz=${tz}&by=provider`);
    const report = await response.json();
    assert.equal(response.status, 200, JSON.stringify(report));
    const expected = await debitsPerDay(w, tz);
    const days = report.days.filter((day: { calls: number }) => day.calls > 0);
    assert.deepEqual(
      new Map(
        days.map((
          day: { day: string; spendMicro: string; calls: number },
        ) => [day.day, [day.spendMicro, day.calls]]),
      ),
      expected,
      tz,
    );
  }
  const kolkata = await (await usage(w, "from=2026-11-20&to=2026-11-21&tz=Asia/Kolkata&by=model")).json();
  assert.deepEqual(kolkata.days.map((day: { calls: number }) => day.calls), [4, 1]);
  const kathmandu = await (await usage(w, "from=2026-11-20&to=2026-11-21&tz=Asia/Kathmandu&by=model")).json();
  assert.deepEqual(kathmandu.days.map((day: { calls: number }) => day.calls), [2, 3]);
});

Deno.test("GET /v1/usage breaks each day down by the dimension asked, in a stable order, with totals", async () => {
  await using w = await gatewayWorld();
  await callAtSettles(w);
  const report = await (await usage(w, "from=2026-11-20&to=2026-11-21&tz=Asia/Kolkata&by=model")).json();
  assert.deepEqual(
    report.rows.map((row: { day: string; value: string; calls: number }) => [row.day, row.value, row.calls]),
    [
      ["2026-11-20", "echo-1", 2],
      ["2026-11-20", "gpt-test", 2],
      ["2026-11-21", "echo-1", 1],
    ],
  );
  assert.deepEqual({ from: report.from, to: report.to, tz: report.tz, by: report.by }, {
    from: "2026-11-20",
    to: "2026-11-21",
    tz: "Asia/Kolkata",
    by: "model",
  });
  const spent = (rows: { spendMicro: string }[]) =>
    rows.reduce((sum, row) => sum + BigInt(row.spendMicro), 0n);
  assert.equal(report.totals.calls, 5);
  assert.equal(BigInt(report.totals.spendMicro), spent(report.rows));
  assert.deepEqual(
    report.values.map((value: { value: string; calls: number }) => [value.value, value.calls]),
    [
      ["echo-1", 3],
      ["gpt-test", 2],
    ],
  );
  const byKey = await (await usage(w, "from=2026-11-20&to=2026-11-21&tz=Asia/Kolkata")).json();
  assert.equal(byKey.by, "key");
  assert.deepEqual(byKey.values.map((value: { value: string }) => value.value), [w.keyId]);
  const byMiner = await (await usage(w, "from=2026-11-20&to=2026-11-21&tz=Asia/Kolkata&by=miner")).json();
  assert.deepEqual(
    byMiner.values.map((value: { value: string | null }) => value.value),
    [null],
    "no miner named",
  );
  assert.equal(spent(byMiner.values), spent(report.rows));
});

Deno.test("GET /v1/usage?format=csv answers exactly the report's rows", async () => {
  await using w = await gatewayWorld();
  await callAtSettles(w);
  const query = "from=2026-11-20&to=2026-11-22&tz=Asia/Kathmandu&by=provider";
  const report = await (await usage(w, query)).json();
  const response = await usage(w, `${query}&format=csv`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/csv; charset=utf-8");
  assert.equal(
    response.headers.get("content-disposition"),
    'attachment; filename="usage-provider-2026-11-20-2026-11-22.csv"',
  );
  const lines = (await response.text()).split("\r\n");
  assert.equal(lines.pop(), "");
  assert.deepEqual(lines, [
    "day,provider,spendMicro,calls",
    ...report.rows.map((row: { day: string; value: string; spendMicro: string; calls: number }) =>
      `${row.day},${row.value},${row.spendMicro},${row.calls}`
    ),
  ]);
  assert.equal(lines.length, 6);
});

Deno.test("GET /v1/usage shows only the key's own organisation, and needs billing:read", async () => {
  await using w = await gatewayWorld();
  await callAtSettles(w);
  const other = await createOrg(w.service.request, "Other");
  const otherKey = await issueKey(w.service.request, other, { scopes: ["billing:read"] });
  const theirs = await (await usage(w, "from=2026-11-20&to=2026-11-21", otherKey.apiKey)).json();
  assert.deepEqual(theirs.rows, []);
  assert.deepEqual(theirs.totals, { spendMicro: "0", calls: 0 });
  const gatewayOnly = await issueKey(w.service.request, w.orgId, { scopes: ["gateway:write"] });
  const refused = await usage(w, "from=2026-11-20&to=2026-11-21", gatewayOnly.apiKey);
  assert.equal(refused.status, 403);
  assert.equal(await errorCode(refused), "insufficient_scope");
  const anonymous = await w.service.request("/v1/usage?from=2026-11-20&to=2026-11-21");
  assert.equal(anonymous.status, 401);
  await anonymous.body?.cancel();
});

Deno.test("GET /v1/usage refuses a bad range, zone or dimension with 400 naming the field", async () => {
  await using w = await gatewayWorld();
  const cases: [string, string][] = [
    ["from=2026-11-20", "to"],
    ["from=2026-02-30&to=2026-03-01", "from"],
    ["from=2026-11-20&to=2026-11-19", "to"],
    ["from=2025-11-20&to=2026-11-21", "to"],
    ["from=1999-12-31&to=2000-01-01", "from"],
    ["from=2026-11-20&to=2026-11-21&tz=Mars/Olympus_Mons", "tz"],
    ["from=2026-11-20&to=2026-11-21&tz=%2B05:30", "tz"],
    ["from=2026-11-20&to=2026-11-21&by=colour", "by"],
    ["from=2026-11-20&to=2026-11-21&format=xml", "format"],
    ["from=2026-11-20&to=2026-11-21&orgId=org_x", "orgId"],
  ];
  for (const [query, field] of cases) {
    const response = await usage(w, query);
    const body = await response.json();
    assert.equal(response.status, 400, query);
    assert.equal(body.error.code, "invalid_request", query);
    assert.ok(JSON.stringify(body.error.details).includes(`"${field}"`), `${query}: ${JSON.stringify(body)}`);
  }
  const year = await usage(w, "from=2024-01-01&to=2024-12-31&tz=Asia/Kathmandu");
  assert.equal(year.status, 200, "366 days (a leap year) are allowed");
  assert.equal((await year.json()).days.length, 366);
});

Deno.test("GET /v1/usage shows a settle at once, and is in the OpenAPI document", async () => {
  await using w = await gatewayWorld();
  w.service.clock.advance(SETTLES[1]! - T0);
  const before = await (await usage(w, "from=2026-11-20&to=2026-11-20")).json();
  assert.equal(before.totals.calls, 0);
  assert.equal((await w.complete(ECHO_CALL)).status, 200);
  const after = await (await usage(w, "from=2026-11-20&to=2026-11-20")).json();
  assert.equal(after.totals.calls, 1);
  const doc = await (await w.service.request("/openapi.json")).json();
  assert.deepEqual(doc.paths["/v1/usage"].get.security, [{ apiKey: ["billing:read"] }]);
  assert.deepEqual(doc.paths["/v1/usage/leases"].get.security, [{ apiKey: ["billing:read"] }]);
});
