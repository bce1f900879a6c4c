/**
 * The journey's usage steps (the usage view, its CSV, the ledger, the low-balance banner), each
 * on the signed-in owner's page, asserting what the dashboard must show.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { adminInit } from "../../access.ts";
import { axeViolations } from "../axe.ts";
import type { DashboardSite } from "../dashboard_site.ts";

/** A billed completion by the built-in echo provider with `apiKey` (a key with the gateway scope); its cost. */
export async function makeBilledCall(site: DashboardSite, apiKey: string): Promise<bigint> {
  const body = JSON.stringify({
    provider: "echo",
    model: "echo-1",
    messages: [{ role: "user", content: "Hello, gateway!" }],
    maxTokens: 16,
  });
  const response = await site.service.request("/v1/gateway/completions", {
    method: "POST",
    headers: {
      authorization: `Bearer ${apiKey}`,
      "content-type": "application/json",
      "content-length": String(new TextEncoder().encode(body).length),
    },
    body,
  });
  assert.equal(response.status, 200, await response.clone().text());
  await response.body?.cancel();
  return await lastDebit(site, await orgOfKey(site, apiKey));
}

async function orgOfKey(site: DashboardSite, apiKey: string): Promise<string> {
  const keyId = apiKey.split("_")[1]!;
  const key = await site.service.storage.apiKeys.get(keyId);
  assert.ok(key, keyId);
  return key.orgId;
}

/** −the amount of the org's newest ledger debit. */
async function lastDebit(site: DashboardSite, orgId: string): Promise<bigint> {
  const ledger = await site.service.request(`/admin/v1/orgs/${orgId}/ledger?limit=10`, adminInit("GET"));
  const items = (await ledger.json()).items as { kind: string; amountMicro: string }[];
  const debit = items.find((item) => item.kind === "debit");
  assert.ok(debit, "a debit in the ledger");
  return -BigInt(debit.amountMicro);
}

/** Zero serious or critical axe violations on the page as it is now. */
export async function assertAxeClean(page: Page): Promise<void> {
  assert.deepEqual(await axeViolations(page), [], `axe on ${page.url()}`);
}

/**
 * Opens the usage view without a zone: the page's script fills in the browser's and asks again;
 * the key's call shows in the table (its name, id, spend and one call) and in the chart, and the
 * downloaded CSV holds exactly the table's rows. Answers the table's rows.
 */
export async function seeCallInUsage(
  page: Page,
  site: DashboardSite,
  call: { keyId: string; keyName: string; costMicro: bigint },
): Promise<string[][]> {
  const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  await page.goto(`${site.base}/dashboard/usage`);
  await page.waitForURL((url) => url.searchParams.get("tz") === zone);
  assert.equal(await page.inputValue("#usage-tz"), zone);
  assert.match(await page.locator("#usage-figures").innerText(), new RegExp(`, ${zone}, by API key`));
  const row = page.locator(`#usage-table tbody tr[data-value="${call.keyId}"]`);
  assert.equal(await row.count(), 1);
  assert.equal(await row.getAttribute("data-spend-micro"), call.costMicro.toString());
  assert.equal(await row.getAttribute("data-calls"), "1");
  assert.match(await row.innerText(), new RegExp(call.keyId));
  assert.ok((await row.innerText()).includes(call.keyName), "the key's name");
  const points = page.locator(`#usage-chart .point[data-series="${call.keyName}"]`);
  assert.ok((await points.count()) >= 1, "the key's line in the chart");
  const drawn = await points.evaluateAll((marks) => marks.map((mark) => Number(mark.getAttribute("data-y"))));
  assert.deepEqual(
    drawn.filter((y) => y > 0),
    [Number(call.costMicro) / 1_000_000],
    "the call's day in the chart",
  );
  const rows = await page.locator("#usage-table tbody tr").evaluateAll((trs) =>
    trs.map((tr) => [
      tr.getAttribute("data-day") ?? "",
      tr.getAttribute("data-value") ?? "",
      tr.getAttribute("data-spend-micro") ?? "",
      tr.getAttribute("data-calls") ?? "",
    ])
  );
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("text=Download CSV")]);
  const csv = await Deno.readTextFile(await download.path());
  const lines = csv.split("\r\n").filter((line) => line !== "");
  assert.equal(lines[0], "day,key,keyName,spendMicro,calls");
  assert.deepEqual(
    lines.slice(1).map((line) => {
      const cells = line.split(",");
      return [cells[0], cells[1], cells.at(-2), cells.at(-1)];
    }),
    rows,
    "the CSV's rows are the table's",
  );
  await assertAxeClean(page);
  return rows;
}

/** The ledger page lists the call's debit first (newest first). */
export async function seeDebitInLedger(page: Page, site: DashboardSite, costMicro: bigint): Promise<void> {
  await page.goto(`${site.base}/dashboard/ledger`);
  const first = page.locator("#ledger-table tbody tr").first();
  assert.equal(await first.getAttribute("data-amount-micro"), (-costMicro).toString());
  assert.match(await first.innerText(), /debit/);
  await assertAxeClean(page);
}

/**
 * The owner sets a low-balance warning above the available amount on the home page: the banner
 * shows on the home page and on every other dashboard page.
 */
export async function setThresholdAboveBalance(page: Page, site: DashboardSite): Promise<void> {
  await page.goto(`${site.base}/dashboard`);
  assert.equal(await page.locator("#low-balance-banner").count(), 0);
  const available = BigInt(
    (await page.locator("[data-available-micro]").getAttribute("data-available-micro"))!,
  );
  const above = (available + 1_000_000n) / 1_000_000n;
  await page.fill("#low-balance-threshold", above.toString());
  await page.click("text=Set the warning");
  await page.waitForURL(`${site.base}/dashboard`);
  assert.match(await page.locator("#low-balance-banner").innerText(), /Low balance/);
  await assertAxeClean(page);
  for (const path of ["/dashboard/usage?tz=UTC", "/dashboard/ledger", "/dashboard/keys"]) {
    await page.goto(`${site.base}${path}`);
    assert.equal(await page.locator("#low-balance-banner").count(), 1, path);
  }
}
