import assert from "node:assert/strict";
import { keyInit } from "../../support/access.ts";
import { memberBrowser } from "../../support/dashboard_member.ts";
import { getPage } from "../../support/dashboard_miners.ts";
import { openSpendLoop, spendOnTwoLeases } from "../../support/lease_spend.ts";

Deno.test("the miners page shows the spend of GET /v1/usage/leases, by validator and by lease outcome", async () => {
  const loop = await openSpendLoop({ FGW_PUBLIC_URL: "http://localhost:8080" });
  await using service = loop.service;
  const { apiKey, submitted, open, today } = await spendOnTwoLeases(loop);
  const api = await (await service.request(`/v1/usage/leases?from=${today}&to=${today}`, keyInit(apiKey)))
    .json();

  const viewer = await memberBrowser(service, loop.orgId, "viewer");
  const page = await getPage(service, viewer, `/dashboard/miners?from=${today}&to=${today}&tz=UTC`);
  assert.equal(page.status, 200);
  assert.match(page.html, new RegExp(`data-spend-total="${api.totals.spendMicro}"`));
  const shown = [...page.html.matchAll(/data-spend-micro="(\d+)"/g)].map((match) => match[1]);
  const expected = api.miners.flatMap((miner: {
    byValidator: { spendMicro: string }[];
    byOutcome: { spendMicro: string }[];
  }) => [...miner.byValidator, ...miner.byOutcome].map((each) => each.spendMicro));
  assert.deepEqual(shown, expected);
  assert.ok(shown.some((spend) => spend !== "0"));
  for (const work of [submitted, open]) {
    assert.match(page.html, new RegExp(`data-hotkey="${work.minerHotkey}"`));
  }
});
