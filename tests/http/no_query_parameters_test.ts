/**
 * docs/conventions.md: a query parameter a route does not declare is refused with 400 naming it,
 * also on routes that declare none; the health probes are left alone.
 */
import assert from "node:assert/strict";
import { ADMIN_TOKEN, createOrg, issueKey, keyInit } from "../support/access.ts";
import { openTestService } from "../support/test_service.ts";

Deno.test("a route that takes no query parameters answers 400 naming each one it was sent", async () => {
  await using service = await openTestService({ env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN } });
  const orgId = await createOrg(service.request);
  const { apiKey } = await issueKey(service.request, orgId, { scopes: ["billing:read", "predictions:read"] });
  const answer = await service.request("/v1/credits/balance?foo=1&bar=2&foo=3", keyInit(apiKey));
  assert.equal(answer.status, 400);
  const body = await answer.json();
  assert.equal(body.error.code, "invalid_request");
  assert.deepEqual(body.error.details.fields.map((f: { field: string }) => f.field), ["foo", "bar"]);
  assert.equal(
    answer.headers.get("x-ratelimit-limit") !== null,
    true,
    "after authentication, like every 400",
  );
  assert.equal(
    (await service.request("/v1/credits/balance?", keyInit(apiKey))).status,
    200,
    "an empty query",
  );
  assert.equal((await service.request("/v1/credits/balance", keyInit(apiKey))).status, 200);
  for (const empty of ["?&", "?&&"]) {
    const answer = await service.request(`/v1/credits/balance${empty}`, keyInit(apiKey));
    assert.equal(answer.status, 200, `empty pieces (${empty}) are no parameter, as on routes that take some`);
  }
  assert.equal((await service.request("/v1/gateway/providers?&")).status, 200);
  const unauthenticated = await service.request("/v1/credits/balance?foo=1");
  assert.equal(unauthenticated.status, 401, "authentication is checked first");
  const prediction = await service.request("/v1/predictions/polymarket-1?foo=1", keyInit(apiKey));
  assert.equal(prediction.status, 400, "the self-parsed single prediction route too");
  assert.equal((await service.request("/healthz?probe=lb")).status, 200, "health probes ignore a query");
});

Deno.test('a query parameter with an empty name (?=x, &=) is refused with 400 naming the field "" on routes that take parameters too', async () => {
  await using service = await openTestService({ env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN } });
  const orgId = await createOrg(service.request);
  const { apiKey } = await issueKey(service.request, orgId, { scopes: ["history:read"] });
  const admin = { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };
  const cases: [string, RequestInit?][] = [
    ["/v1/events?=x"],
    ["/v1/events?="],
    ["/v1/events?limit=5&=x"],
    ["/v1/events/random?=x"],
    ["/v1/events/scored?=x"],
    ["/v1/leaderboard?=x"],
    [`/admin/v1/orgs/${orgId}/ledger?=x`, admin],
    ["/v1/predictions/polymarket-1/history?=x", keyInit(apiKey)],
  ];
  for (const [path, init] of cases) {
    const answer = await service.request(path, init);
    assert.equal(answer.status, 400, path);
    const body = await answer.json();
    assert.equal(body.error.code, "invalid_request", path);
    assert.deepEqual(body.error.details.fields.map((f: { field: string }) => f.field), [""], path);
  }
  assert.equal(
    (await service.request("/v1/events?limit=5&")).status,
    200,
    "an empty segment is no parameter",
  );
  assert.equal((await service.request("/v1/events?q=a%3Db")).status, 200, "an encoded = in a value");
});
