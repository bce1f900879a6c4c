import assert from "node:assert/strict";
import { openTestService, TEST_START_MS, type TestService } from "../support/test_service.ts";
import { errorCode } from "../support/access.ts";
import { AddressWindows, clientKey, normalizeAddress } from "../../routes/middleware/ip_throttle.ts";
import { loadConfig } from "../../scripts/service/config.ts";

/** What `Deno.serve` passes to `app.fetch` as its second argument. */
function from(hostname: string) {
  return { remoteAddr: { hostname, port: 40_000, transport: "tcp" } };
}

/** The status of `GET /v1/events` from `hostname` (200 when admitted, 429 when throttled). */
async function eventsStatus(service: TestService, hostname: string, init: RequestInit = {}) {
  const response = await service.app.request("/v1/events", init, from(hostname));
  await response.body?.cancel();
  return response.status;
}

Deno.test("IP throttle answers 429 with Retry-After once an address exceeds its rpm, per address", async () => {
  await using service = await openTestService({ env: { FGW_IP_RPM: "3" } });
  service.clock.set(TEST_START_MS + 15_000);
  for (let i = 0; i < 3; i++) assert.equal(await eventsStatus(service, "203.0.113.7"), 200);
  const limited = await service.app.request("/v1/events", {}, from("203.0.113.7"));
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get("retry-after"), "45");
  const body = await limited.json();
  assert.equal(body.error.code, "rate_limited");
  assert.deepEqual(body.error.details, { limit: 3 });
  assert.equal(await eventsStatus(service, "203.0.113.8"), 200);
  service.clock.advance(45_000);
  assert.equal(await eventsStatus(service, "203.0.113.7"), 200);
});

Deno.test("IP throttle counts unknown routes and admin calls too, but not the health probes", async () => {
  await using service = await openTestService({ env: { FGW_IP_RPM: "2" } });
  assert.equal((await service.app.request("/no/such/route", {}, from("203.0.113.7"))).status, 404);
  assert.equal((await service.app.request("/admin/v1/orgs", {}, from("203.0.113.7"))).status, 404);
  const limited = await service.app.request("/v1/events", {}, from("203.0.113.7"));
  assert.equal(limited.status, 429);
  assert.equal(await errorCode(limited), "rate_limited");
  for (let i = 0; i < 5; i++) {
    assert.equal((await service.app.request("/healthz", {}, from("203.0.113.7"))).status, 200);
  }
});

Deno.test("IP throttle ignores X-Forwarded-For from an untrusted peer", async () => {
  await using service = await openTestService({ env: { FGW_IP_RPM: "2", FGW_TRUSTED_PROXIES: "10.0.0.1" } });
  for (const spoof of ["198.51.100.1", "198.51.100.2"]) {
    assert.equal(await eventsStatus(service, "203.0.113.7", { headers: { "x-forwarded-for": spoof } }), 200);
  }
  assert.equal(
    await eventsStatus(service, "203.0.113.7", { headers: { "x-forwarded-for": "198.51.100.3" } }),
    429,
  );
});

Deno.test("IP throttle counts the forwarded client behind a trusted proxy, not client-written hops", async () => {
  await using service = await openTestService({
    env: { FGW_IP_RPM: "1", FGW_TRUSTED_PROXIES: "10.0.0.1, 10.0.0.2" },
  });
  const via = (xff: string) => eventsStatus(service, "10.0.0.1", { headers: { "x-forwarded-for": xff } });
  assert.equal(await via("198.51.100.1"), 200);
  assert.equal(await via("198.51.100.2, 10.0.0.2"), 200);
  assert.equal(await via("1.1.1.1, 198.51.100.1"), 429, "the left hop is client-written");
  assert.equal(await via("198.51.100.2"), 429);
  assert.equal(await eventsStatus(service, "::ffff:10.0.0.9"), 200);
});

Deno.test("IP throttle reads X-Forwarded-For entries with ports and brackets as the bare address", async () => {
  await using service = await openTestService({
    env: { FGW_IP_RPM: "1", FGW_TRUSTED_PROXIES: "10.0.0.1,[2001:db8::a]" },
  });
  const via = (peer: string, xff: string) =>
    eventsStatus(service, peer, { headers: { "x-forwarded-for": xff } });
  assert.equal(await via("10.0.0.1", "198.51.100.1:51234"), 200);
  assert.equal(await via("10.0.0.1", "198.51.100.1"), 429, "the port does not make another client");
  assert.equal(await via("::ffff:10.0.0.1", " 198.51.100.1:443 "), 429);
  assert.equal(await via("2001:DB8::A", "[2001:db8:5:6::1]:443"), 200, "a trusted IPv6 proxy, any spelling");
  assert.equal(await via("10.0.0.1", "2001:db8:5:6:0:0:0:1"), 429);
});

Deno.test("IP throttle counts an IPv6 client by its /64: rotating addresses inside it does not help", async () => {
  await using service = await openTestService({ env: { FGW_IP_RPM: "2" } });
  assert.equal(await eventsStatus(service, "2001:db8:1:2::1"), 200);
  assert.equal(await eventsStatus(service, "2001:db8:1:2:ffff:ffff:ffff:fffe"), 200);
  assert.equal(await eventsStatus(service, "2001:db8:1:2:abcd::9"), 429);
  assert.equal(await eventsStatus(service, "2001:db8:1:3::1"), 200, "the next /64 is another client");
});

Deno.test("IP throttle with FGW_IP_RPM=0 is off: more requests than the default limit all pass", async () => {
  // One more than the default (600), so a 0 read as "use the default" would answer 429.
  const requests = loadConfig({}).FGW_IP_RPM + 1;
  await using service = await openTestService({ env: { FGW_IP_RPM: "0" } });
  for (let i = 0; i < requests; i++) assert.equal(await eventsStatus(service, "203.0.113.7"), 200);
});

Deno.test("IP throttle memory is bounded: old windows are dropped, the least recently seen client evicted", () => {
  const windows = new AddressWindows(2);
  assert.equal(windows.hit("a", 0), 1);
  assert.equal(windows.hit("a", 0), 2);
  windows.hit("b", 0);
  assert.equal(windows.hit("a", 0), 3, "a is seen again: b is now the least recently seen");
  windows.hit("c", 0);
  assert.equal(windows.size, 2);
  assert.equal(windows.hit("a", 0), 4, "a busy client is not evicted by a new one");
  assert.equal(windows.hit("b", 0), 1, "b was evicted");
  assert.equal(windows.hit("c", 60_000), 1);
  assert.equal(windows.size, 1);
});

Deno.test("addresses normalise to one spelling and IPv6 clients to their /64", () => {
  assert.equal(normalizeAddress(" 203.0.113.7:8080 "), "203.0.113.7");
  assert.equal(normalizeAddress("[2001:DB8:0:0::1]:443"), "2001:db8::1");
  assert.equal(normalizeAddress("[2001:db8::1]"), "2001:db8::1");
  assert.equal(normalizeAddress("::FFFF:198.51.100.4"), "198.51.100.4");
  assert.equal(normalizeAddress("unknown"), "unknown");
  assert.equal(clientKey("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
  assert.equal(clientKey("2001:db8::1"), "2001:db8:0:0::/64");
  assert.equal(clientKey("::1"), "0:0:0:0::/64");
  assert.equal(clientKey("203.0.113.7"), "203.0.113.7");
});
