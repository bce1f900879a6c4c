import assert from "node:assert/strict";
import { addCredits, adminInit, createOrg, issueKey } from "../../support/access.ts";
import type { TestBrowser } from "../../support/dashboard.ts";
import { memberBrowser } from "../../support/dashboard_member.ts";
import { callAtSettles, debitsPerDay } from "../../support/usage_settles.ts";
import { ECHO_CALL, type GatewayWorld, gatewayWorld } from "../../gateway/gateway_service.ts";

const ORIGIN = "http://localhost:8080";
const HTML = { accept: "text/html" };
/** A key name a spreadsheet would run as a formula, with markup a page must show as text. */
const FORMULA_NAME = '=HYPERLINK("http://evil.example","<b>x</b>")';

function dashboardWorld(): Promise<GatewayWorld> {
  return gatewayWorld({ env: { FGW_PUBLIC_URL: ORIGIN }, key: { name: FORMULA_NAME } });
}

function open(w: GatewayWorld, browser: TestBrowser, path: string): Promise<Response> {
  return browser.fetch((p, init) => w.service.request(p, init), path, { headers: HTML });
}

async function pageText(w: GatewayWorld, browser: TestBrowser, path: string): Promise<string> {
  const response = await open(w, browser, path);
  assert.equal(response.status, 200, path);
  return await response.text();
}

/** Posts a dashboard form with the CSRF token the home page gives this browser. */
async function postForm(
  w: GatewayWorld,
  browser: TestBrowser,
  path: string,
  fields: [string, string][],
): Promise<Response> {
  const home = await pageText(w, browser, "/dashboard");
  const csrf = /name="_csrf" value="([^"]+)"/.exec(home)?.[1] ?? "";
  return await browser.fetch((p, init) => w.service.request(p, init), path, {
    method: "POST",
    headers: { ...HTML, origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams([...fields, ["_csrf", csrf]]),
  });
}

interface TableRow {
  day: string;
  value: string;
  spendMicro: string;
  calls: number;
}

/** The usage table's rows as the page marks them (`data-*` of each body row). */
function tableRows(html: string): TableRow[] {
  const rows = [...html.matchAll(
    /<tr data-day="([^"]*)" data-value="([^"]*)" data-spend-micro="([^"]*)" data-calls="([^"]*)">/g,
  )];
  return rows.map(([, day, value, spendMicro, calls]) => ({
    day: day!,
    value: value!,
    spendMicro: spendMicro!,
    calls: Number(calls),
  }));
}

Deno.test("the usage view's figures equal the ledger's debits per local day, in zones of :00, :30 and :45", async () => {
  await using w = await dashboardWorld();
  await callAtSettles(w);
  const viewer = await memberBrowser(w.service, w.orgId, "viewer");
  for (const tz of ["UTC", "Asia/Kolkata", "Asia/Kathmandu"]) {
    const html = await pageText(
      w,
      viewer,
      `/dashboard/usage?from=2026-11-19&to=2026-11-22&tz=${tz}&by=provider`,
    );
    const perDay = new Map<string, [string, number]>();
    for (const row of tableRows(html)) {
      const [spend, calls] = perDay.get(row.day) ?? ["0", 0];
      perDay.set(row.day, [String(BigInt(spend) + BigInt(row.spendMicro)), calls + row.calls]);
    }
    assert.deepEqual(perDay, await debitsPerDay(w, tz), tz);
    const total = [...perDay.values()].reduce((sum, [spend]) => sum + BigInt(spend), 0n);
    assert.match(html, new RegExp(`data-total-spend-micro="${total}"`), tz);
    assert.match(html, /<svg viewBox="[^"]+" role="img"/, "the chart");
    assert.doesNotMatch(html, /style=/, "no inline style");
  }
  const kathmandu = tableRows(
    await pageText(w, viewer, "/dashboard/usage?from=2026-11-20&to=2026-11-21&tz=Asia/Kathmandu&by=model"),
  );
  assert.deepEqual(
    kathmandu.map((row) => [row.day, row.value, row.calls]),
    [["2026-11-20", "echo-1", 1], ["2026-11-20", "gpt-test", 1], ["2026-11-21", "echo-1", 2], [
      "2026-11-21",
      "gpt-test",
      1,
    ]],
  );
});

Deno.test("the CSV has exactly the table's rows, a formula in a key name escaped; the page shows it as text", async () => {
  await using w = await dashboardWorld();
  await callAtSettles(w);
  const owner = await memberBrowser(w.service, w.orgId, "owner");
  const query = "from=2026-11-20&to=2026-11-22&tz=Asia/Kolkata&by=key";
  const html = await pageText(w, owner, `/dashboard/usage?${query}`);
  const rows = tableRows(html);
  assert.equal(rows.length, 3, "2026-11-20, 21 and 22 in Kolkata");
  assert.ok(!html.includes("<b>x</b>"), "the key name's markup is inert");
  assert.ok(html.includes("=HYPERLINK(&quot;http://evil.example&quot;,&quot;&lt;b&gt;x&lt;/b&gt;&quot;)"));
  const href = /<a href="([^"]+)" download[^>]*>Download CSV<\/a>/.exec(html)?.[1]?.replaceAll("&amp;", "&");
  assert.equal(href, `/dashboard/usage.csv?${query.replace("/", "%2F")}`);
  const csv = await open(w, owner, href!);
  assert.equal(csv.status, 200);
  assert.equal(csv.headers.get("content-type"), "text/csv; charset=utf-8");
  assert.equal(csv.headers.get("cache-control"), "no-store");
  const lines = (await csv.text()).split("\r\n");
  assert.equal(lines.pop(), "");
  const escaped = `"'=HYPERLINK(""http://evil.example"",""<b>x</b>"")"`;
  assert.deepEqual(lines, [
    "day,key,keyName,spendMicro,calls",
    ...rows.map((row) => `${row.day},${row.value},${escaped},${row.spendMicro},${row.calls}`),
  ]);
  assert.deepEqual(rows.map((row) => row.value), [w.keyId, w.keyId, w.keyId]);
  const byModel = await open(
    w,
    owner,
    "/dashboard/usage.csv?from=2026-11-20&to=2026-11-22&tz=Asia/Kolkata&by=model",
  );
  assert.equal((await byModel.text()).split("\r\n")[0], "day,model,spendMicro,calls");
});

Deno.test("a bad range, zone or breakdown shows the form again with 400 naming the field", async () => {
  await using w = await dashboardWorld();
  const viewer = await memberBrowser(w.service, w.orgId, "viewer");
  const cases: [string, string][] = [
    ["from=2025-11-20&to=2026-11-21", "to"],
    ["from=2026-11-20&to=2026-11-19", "to"],
    ["from=2026-02-30&to=2026-03-01", "from"],
    ["from=2026-11-20&to=2026-11-21&tz=Mars/Olympus_Mons", "tz"],
    ["from=2026-11-20&to=2026-11-21&tz=%2B05:45", "tz"],
    ["from=2026-11-20&to=2026-11-21&by=colour", "by"],
  ];
  for (const [query, field] of cases) {
    const response = await open(w, viewer, `/dashboard/usage?${query}`);
    assert.equal(response.status, 400, query);
    const html = await response.text();
    assert.match(html, new RegExp(`<strong>${field}</strong>`), query);
    assert.match(html, new RegExp(`id="usage-${field}-error"`), query);
    assert.match(html, /<form method="get" action="\/dashboard\/usage"/, query);
    const csv = await open(w, viewer, `/dashboard/usage.csv?${query}`);
    assert.equal(csv.status, 400, `CSV: ${query}`);
    await csv.body?.cancel();
  }
  const year = await open(w, viewer, "/dashboard/usage?from=2024-01-01&to=2024-12-31&tz=Asia/Kathmandu");
  assert.equal(year.status, 200, "366 days are allowed");
  assert.equal((await year.text()).match(/<tr data-day/g), null, "no calls: no rows");
});

Deno.test("without a zone the view is UTC, and the form asks the script for the browser's", async () => {
  await using w = await dashboardWorld();
  const viewer = await memberBrowser(w.service, w.orgId, "viewer");
  const html = await pageText(w, viewer, "/dashboard/usage");
  assert.match(html, /<script src="\/dashboard\/assets\/usage.js" defer>/);
  assert.match(html, /id="usage-tz" name="tz" type="text" value=""/);
  assert.match(html, /data-browser-zone="submit"/);
  assert.match(html, /2026-10-22 to 2026-11-20, UTC, by API key/);
  const chosen = await pageText(w, viewer, "/dashboard/usage?tz=Asia/Kathmandu");
  assert.match(chosen, /data-browser-zone="fill"/);
  const script = await w.service.request("/dashboard/assets/usage.js");
  assert.equal(script.status, 200);
  assert.match(await script.text(), /resolvedOptions\(\)\.timeZone/);
});

Deno.test("the ledger page lists the org's entries newest first, a keyset page at a time", async () => {
  await using w = await dashboardWorld();
  await callAtSettles(w);
  const viewer = await memberBrowser(w.service, w.orgId, "viewer");
  const first = await pageText(w, viewer, "/dashboard/ledger?limit=4");
  const seqs = (html: string) => [...html.matchAll(/<tr data-seq="(\d+)"/g)].map((m) => Number(m[1]));
  assert.equal(seqs(first).length, 4);
  const older = /<a href="([^"]+)" rel="next">/.exec(first)?.[1]?.replaceAll("&amp;", "&");
  assert.ok(older);
  const second = await pageText(w, viewer, `${older}&limit=4`);
  const all = [...seqs(first), ...seqs(second)];
  const ledger =
    await (await w.service.request(`/admin/v1/orgs/${w.orgId}/ledger?limit=200`, adminInit("GET")))
      .json();
  assert.deepEqual(all, ledger.items.map((entry: { seq: number }) => entry.seq).slice(0, all.length));
  assert.equal(ledger.items.length, 7, "a credit and six debits");
  assert.equal(all.length, 7);
  assert.deepEqual(all, all.toSorted((a, b) => b - a));
  const forged = await open(w, viewer, "/dashboard/ledger?cursor=forged");
  assert.equal(forged.status, 400);
  await forged.body?.cancel();
});

Deno.test("the home page shows spend per day over the last 7 UTC days and the runway", async () => {
  await using w = await dashboardWorld();
  const viewer = await memberBrowser(w.service, w.orgId, "viewer");
  const before = await pageText(w, viewer, "/dashboard");
  assert.match(before, /data-spend-per-day-micro="0"/);
  assert.match(before, /data-runway-days="">— \(nothing spent\)/);
  await callAtSettles(w);
  const debits = [...(await debitsPerDay(w, "UTC")).values()].reduce(
    (sum, [spend]) => sum + BigInt(spend),
    0n,
  );
  const perDay = debits / 7n;
  // A day and a half passed: a new session.
  const home = await pageText(w, await memberBrowser(w.service, w.orgId, "viewer"), "/dashboard");
  assert.match(home, new RegExp(`data-spend-per-day-micro="${perDay}"`));
  const available = BigInt(/data-available-micro="(-?\d+)"/.exec(home)![1]!);
  assert.match(home, new RegExp(`data-runway-days="${Number((available * 10n) / perDay) / 10}"`));
  assert.match(home, /2026-11-15 to 2026-11-21, UTC/);
});

Deno.test("an owner sets and clears the low-balance warning; its banner shows on every page; a viewer gets 403", async () => {
  await using w = await dashboardWorld();
  const owner = await memberBrowser(w.service, w.orgId, "owner");
  const viewer = await memberBrowser(w.service, w.orgId, "viewer");
  const refused = await postForm(w, viewer, "/dashboard/low-balance", [["threshold", "5"]]);
  assert.equal(refused.status, 403);
  assert.match(await refused.text(), /insufficient_role|Only an owner/);
  for (const bad of ["", "-1", "1.0000001", "abc", "99999999999999"]) {
    const answer = await postForm(w, owner, "/dashboard/low-balance", [["threshold", bad]]);
    assert.equal(answer.status, 400, bad);
    const html = await answer.text();
    assert.match(html, /<strong>threshold<\/strong>/, bad);
    assert.match(html, /id="low-balance-threshold-error"/, bad);
  }
  const pages = ["/dashboard", "/dashboard/keys", "/dashboard/usage", "/dashboard/ledger"];
  for (const path of pages) assert.doesNotMatch(await pageText(w, viewer, path), /low-balance-banner/, path);
  // The org holds 1 credit: a warning at 2.5 credits is above it.
  const set = await postForm(w, owner, "/dashboard/low-balance", [["threshold", "2.5"]]);
  assert.equal(set.status, 303);
  assert.equal(set.headers.get("location"), "/dashboard");
  for (const path of pages) {
    const html = await pageText(w, viewer, path);
    assert.match(html, /id="low-balance-banner"/, path);
    assert.match(html, /1\.000000 credits available/, path);
  }
  assert.match(await pageText(w, owner, "/dashboard"), /data-threshold-micro="2500000"/);
  const audit = await (await w.service.request(`/admin/v1/orgs/${w.orgId}/audit`, adminInit("GET"))).json();
  assert.equal(audit.items[0].action, "low_balance.set");
  assert.equal(audit.items[0].details.thresholdMicro, "2500000");
  assert.equal(audit.items[0].by.kind, "member");
  const below = await postForm(w, owner, "/dashboard/low-balance", [["threshold", "0.5"]]);
  assert.equal(below.status, 303);
  assert.doesNotMatch(await pageText(w, viewer, "/dashboard"), /low-balance-banner/, "available is above it");
  const cleared = await postForm(w, owner, "/dashboard/low-balance", [["threshold", "0.5"], ["clear", "1"]]);
  assert.equal(cleared.status, 303);
  assert.match(await pageText(w, owner, "/dashboard"), /No warning is set/);
  const log = await (await w.service.request(`/admin/v1/orgs/${w.orgId}/audit`, adminInit("GET"))).json();
  assert.deepEqual(
    log.items.filter((entry: { action: string }) => entry.action === "low_balance.set")
      .map((entry: { details: { thresholdMicro: string | null } }) => entry.details.thresholdMicro),
    [null, "500000", "2500000"],
  );
});

Deno.test("a member sees only its own organisation's usage and ledger", async () => {
  await using w = await dashboardWorld();
  const other = await createOrg(w.service.request, "Other");
  await addCredits(w.service.request, other, "1000000", "theirs");
  const theirKey = await issueKey(w.service.request, other, { scopes: ["gateway:write"] });
  assert.equal((await w.complete(ECHO_CALL, { apiKey: theirKey.apiKey })).status, 200);
  const viewer = await memberBrowser(w.service, w.orgId, "viewer");
  const html = await pageText(w, viewer, "/dashboard/usage?tz=UTC");
  assert.deepEqual(tableRows(html), []);
  assert.match(html, /data-total-calls="0"/);
  const ledger = await pageText(w, viewer, "/dashboard/ledger");
  assert.equal(ledger.match(/<tr data-seq=/g)?.length, 1, "our top-up only");
  assert.doesNotMatch(ledger, /theirs/);
  const theirs = await memberBrowser(w.service, other, "viewer");
  assert.equal(
    tableRows(await pageText(w, theirs, "/dashboard/usage?tz=UTC&by=key"))[0]?.value,
    theirKey.key.keyId,
  );
});
