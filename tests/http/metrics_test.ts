import assert from "node:assert/strict";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import type { Storage } from "../../storage/storage.ts";
import { ADMIN_TOKEN, adminInit, errorCode } from "../support/access.ts";
import { declaredMetrics, parseSamples, sampleValue, seriesKeys } from "../support/prometheus.ts";
import { openTestService, type TestService } from "../support/test_service.ts";

const METRICS_TOKEN = "metrics-scrape-token-0123456789";

/** The metric names docs/operations.md documents (first column of its metrics table). */
async function documentedMetrics(): Promise<string[]> {
  const doc = await Deno.readTextFile(new URL("../../docs/operations.md", import.meta.url));
  return [...doc.matchAll(/^\| `([a-z_]+)` +\| (?:counter|gauge|histogram) /gm)].map((match) => match[1]!);
}

async function scrape(service: TestService, init: RequestInit = {}): Promise<string> {
  const response = await service.request("/metrics", init);
  assert.equal(response.status, 200);
  return await response.text();
}

/** What `Deno.serve` passes to `app.fetch`: the connecting address the IP throttle counts. */
function from(hostname: string) {
  return { remoteAddr: { hostname, port: 40_000, transport: "tcp" } };
}

async function drain(response: Response | Promise<Response>): Promise<number> {
  const answered = await response;
  await answered.body?.cancel();
  return answered.status;
}

Deno.test("/metrics answers the Prometheus text format with every documented metric, and only those", async () => {
  await using service = await openTestService({ env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN } });
  assert.equal(await drain(service.request("/v1/events")), 200);
  assert.equal(await drain(service.request("/v1/events")), 200);
  assert.equal(await drain(service.request("/admin/v1/orgs/org_missing", adminInit("GET"))), 404);
  assert.equal(await drain(service.request("/healthz", { method: "HEAD" })), 200);

  const response = await service.request("/metrics");
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  const text = await response.text();

  assert.deepEqual(declaredMetrics(text).toSorted(), (await documentedMetrics()).toSorted());
  const requests = (labels: Record<string, string>) => sampleValue(text, "fgw_http_requests_total", labels);
  assert.equal(requests({ method: "GET", route: "/v1/events", status: "200" }), 2);
  assert.equal(requests({ method: "GET", route: "/admin/v1/orgs/:orgId", status: "404" }), 1);
  assert.equal(requests({ method: "HEAD", route: "/healthz", status: "200" }), 1);
  const count = sampleValue(text, "fgw_http_request_duration_seconds_count", {
    method: "GET",
    route: "/v1/events",
  });
  assert.equal(count, 2);
  assert.ok(parseSamples(text).every((sample) => !Number.isNaN(sample.value)), "no NaN samples");
});

Deno.test("a fuzz of 200 unknown URLs adds no series beyond one `unmatched` label", async () => {
  await using service = await openTestService();
  assert.equal(await drain(service.request("/v1/events")), 200);
  await scrape(service); // A scrape is counted once answered: the next one shows the /metrics series.
  const before = seriesKeys(await scrape(service), "fgw_http_");

  for (let index = 0; index < 200; index++) {
    assert.equal(await drain(service.request(randomUnknownPath())), 404);
  }

  const after = await scrape(service);
  const added = [...seriesKeys(after, "fgw_http_")].filter((key) => !before.has(key));
  assert.deepEqual(added.toSorted(), [
    'fgw_http_request_duration_seconds[["method","GET"],["route","unmatched"]]',
    'fgw_http_requests_total[["method","GET"],["route","unmatched"],["status","404"]]',
  ]);
  assert.equal(sampleValue(after, "fgw_http_requests_total", { route: "unmatched" }), 200);
});

Deno.test("route labels are route patterns, whatever the parameters, and unknown methods are OTHER", async () => {
  await using service = await openTestService({ env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN } });
  for (let index = 0; index < 50; index++) {
    const id = crypto.randomUUID();
    await drain(service.request(`/admin/v1/orgs/${id}/ledger?limit=${index}`, adminInit("GET")));
    await drain(service.request(`/admin/v1/keys/${id}`, adminInit("GET")));
    await drain(service.request(`/v1/events/${id}`, { method: index % 2 ? "PROPFIND" : "GET" }));
    await drain(service.request(`/v1/no-such-area/${id}`));
  }
  const samples = parseSamples(await scrape(service)).filter((sample) =>
    sample.name === "fgw_http_requests_total"
  );
  const patterns = new Set(service.app.routes.map((route) => route.path));
  for (const { labels } of samples) {
    assert.ok(labels.route === "unmatched" || patterns.has(labels.route!), `route label ${labels.route}`);
  }
  const routes = new Set(samples.map((sample) => `${sample.labels.method} ${sample.labels.route}`));
  assert.deepEqual([...routes].toSorted(), [
    "GET /admin/v1/keys/:keyId",
    "GET /admin/v1/orgs/:orgId/ledger",
    "GET /v1/events/:eventId",
    "GET unmatched",
    "OTHER unmatched",
  ]);
});

Deno.test("with FGW_METRICS_TOKEN set, /metrics answers 401 without the token and 200 with it", async () => {
  await using service = await openTestService({ env: { FGW_METRICS_TOKEN: METRICS_TOKEN } });
  const refused = [
    {},
    { headers: { authorization: "Bearer wrong-token-0123456789abcdef" } },
    { headers: { authorization: `Basic ${btoa(`scraper:${METRICS_TOKEN}`)}` } },
    { headers: { authorization: `Bearer ${METRICS_TOKEN}x` } },
  ];
  for (const init of refused) {
    const response = await service.request("/metrics", init);
    assert.equal(response.status, 401);
    assert.equal(response.headers.get("www-authenticate"), 'Bearer realm="metrics"');
    assert.equal(await errorCode(response), "unauthenticated");
  }
  const text = await scrape(service, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  assert.equal(sampleValue(text, "fgw_http_requests_total", { route: "/metrics", status: "401" }), 4);
});

Deno.test("/metrics refuses a query parameter with 400 naming it, as every route but the health probes", async () => {
  await using service = await openTestService();
  const response = await service.request("/metrics?x=1");
  assert.equal(response.status, 400);
  assert.deepEqual((await response.json()).error.details.fields.map((f: { field: string }) => f.field), [
    "x",
  ]);
  assert.equal((await service.request("/healthz?x=1")).status, 200);
  await using guarded = await openTestService({ env: { FGW_METRICS_TOKEN: METRICS_TOKEN } });
  assert.equal((await guarded.request("/metrics?x=1")).status, 401, "the token is checked first");
  const withToken = await guarded.request("/metrics?x=1", {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  assert.equal(withToken.status, 400);
  await withToken.body?.cancel();
});

Deno.test("/metrics is not throttled by the IP throttle, which still counts other routes", async () => {
  await using service = await openTestService({ env: { FGW_IP_RPM: "2" } });
  const scrapeFrom = () => drain(service.app.request("/metrics", {}, from("203.0.113.9")));
  for (let index = 0; index < 5; index++) assert.equal(await scrapeFrom(), 200);
  assert.equal(await drain(service.app.request("/v1/events", {}, from("203.0.113.9"))), 200);
  assert.equal(await drain(service.app.request("/v1/events", {}, from("203.0.113.9"))), 200);
  assert.equal(await drain(service.app.request("/v1/events", {}, from("203.0.113.9"))), 429);
  const response = await service.app.request("/metrics", {}, from("203.0.113.9"));
  assert.equal(response.status, 200);
  const text = await response.text();
  assert.equal(sampleValue(text, "fgw_http_requests_total", { route: "/v1/events", status: "429" }), 1);
  assert.equal(sampleValue(text, "fgw_http_requests_total", { route: "/metrics", status: "200" }), 5);
});

Deno.test("an unhandled storage failure answered 500 and a failed readiness ping count as storage errors", async () => {
  const storage = await openKvStorage(":memory:");
  await using service = await openTestService({
    env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN },
    storage: withBrokenOrgReads(storage),
  });
  assert.equal(await drain(service.request("/admin/v1/orgs/org_any", adminInit("GET"))), 500);
  assert.equal(await drain(service.request("/readyz")), 503);
  const text = await scrape(service);
  assert.equal(sampleValue(text, "fgw_storage_errors_total", { source: "request" }), 1);
  assert.equal(sampleValue(text, "fgw_storage_errors_total", { source: "readiness" }), 1);
  assert.equal(sampleValue(text, "fgw_http_requests_total", { status: "500" }), 1);
});

Deno.test("two service instances in one process keep their own series", async () => {
  await using first = await openTestService();
  await using second = await openTestService();
  await drain(first.request("/healthz"));
  await drain(first.request("/healthz"));
  await drain(second.request("/healthz"));
  const route = { route: "/healthz" };
  assert.equal(sampleValue(await scrape(first), "fgw_http_requests_total", route), 2);
  assert.equal(sampleValue(await scrape(second), "fgw_http_requests_total", route), 1);
});

/** A path no route matches: random segments of letters, digits, dots, dashes and %-escapes. */
function randomUnknownPath(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_~";
  const segment = () => {
    const length = 1 + Math.floor(Math.random() * 12);
    let text = "";
    for (let index = 0; index < length; index++) {
      text += Math.random() < 0.1
        ? `%${Math.floor(Math.random() * 256).toString(16).padStart(2, "0")}`
        : alphabet[Math.floor(Math.random() * alphabet.length)];
    }
    return text;
  };
  const depth = 1 + Math.floor(Math.random() * 4);
  const path = Array.from({ length: depth }, segment).join("/");
  return `/fuzz-${segment()}/${path}${Math.random() < 0.3 ? `?q=${segment()}` : ""}`;
}

/** The storage with organisation reads and the readiness ping failing, as when the database is gone. */
function withBrokenOrgReads(storage: Storage): Storage {
  const lost = () => Promise.reject(new Error("Cannot reach storage: connection lost"));
  const orgs = new Proxy(storage.orgs, {
    get(target, property) {
      if (property === "get") return lost;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { ...storage, orgs, ping: lost };
}
