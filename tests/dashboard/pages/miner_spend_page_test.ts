import assert from "node:assert/strict";
import { addCredits, issueKey, keyInit } from "../../support/access.ts";
import { memberBrowser } from "../../support/dashboard_member.ts";
import { getPage } from "../../support/dashboard_miners.ts";
import {
  leaseAs,
  type LeasedWork,
  type Loop,
  openLoop,
  signedInit,
  submitAs,
  testSigner,
} from "../../support/validator_loop.ts";
import { ECHO_CALL } from "../../gateway/gateway_service.ts";

const VALIDATOR = testSigner("validator-0");
const PATH = "/v1/gateway/validator/completions";

async function callFor(loop: Loop, work: LeasedWork): Promise<void> {
  const body = JSON.stringify({ ...ECHO_CALL, agentPredictionId: work.agentPredictionId });
  const init = signedInit(VALIDATOR, "POST", PATH, {
    nowMs: loop.service.clock.now(),
    body,
    minerHotkey: work.minerHotkey,
  });
  const response = await loop.service.request(PATH, init);
  assert.equal(response.status, 200, await response.text());
}

Deno.test("the miners page shows the spend of GET /v1/usage/leases, by validator and by lease outcome", async () => {
  const loop = await openLoop({
    validators: [VALIDATOR],
    miners: 2,
    events: 1,
    env: { FGW_PUBLIC_URL: "http://localhost:8080" },
  });
  await using service = loop.service;
  await addCredits(service.request, loop.orgId, "1000000", "miners-credit");
  const { apiKey } = await issueKey(service.request, loop.orgId, { scopes: ["billing:read"] });
  const submitted = await leaseAs(service, VALIDATOR);
  const open = await leaseAs(service, VALIDATOR);
  await callFor(loop, submitted);
  await callFor(loop, submitted);
  await callFor(loop, open);
  assert.equal(await submitAs(service, VALIDATOR, submitted), 200);
  const today = new Date(service.clock.now()).toISOString().slice(0, 10);
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
