import assert from "node:assert/strict";
import { addCredits, issueKey, keyInit } from "../support/access.ts";
import {
  leaseAs,
  type LeasedWork,
  type Loop,
  openLoop,
  signedInit,
  submitAs,
  testSigner,
} from "../support/validator_loop.ts";
import { ECHO_CALL, ECHO_COST } from "../gateway/gateway_service.ts";

const VALIDATOR = testSigner("validator-0");
const PATH = "/v1/gateway/validator/completions";
const LEASE_MS = 600_000;
const GRACE_MS = 60_000;

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

interface Row {
  minerHotkey: string;
  validatorHotkey: string;
  outcome: string;
  leases: number;
  calls: number;
  spendMicro: string;
}

Deno.test("GET /v1/usage/leases shows the miners' LLM spend by validator and by lease outcome", async () => {
  const loop = await openLoop({
    validators: [VALIDATOR],
    miners: 2,
    events: 1,
    env: { FGW_LEASE_MS: String(LEASE_MS), FGW_LEASE_GRACE_MS: String(GRACE_MS) },
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
  const report = async (query = "") => {
    const response = await service.request(
      `/v1/usage/leases?from=${today}&to=${today}${query}`,
      keyInit(apiKey),
    );
    assert.equal(response.status, 200);
    return query.includes("csv") ? await response.text() : await response.json();
  };
  const row = (work: LeasedWork, outcome: string, calls: number): Row => ({
    minerHotkey: work.minerHotkey,
    validatorHotkey: VALIDATOR.hotkey,
    outcome,
    leases: 1,
    calls,
    spendMicro: String(BigInt(calls) * ECHO_COST),
  });
  const ordered = (rows: Row[]) => rows.toSorted((a, b) => a.minerHotkey < b.minerHotkey ? -1 : 1);

  const now = await report();
  assert.deepEqual(now.rows, ordered([row(submitted, "submitted", 2), row(open, "live", 1)]));
  assert.deepEqual(now.totals, { spendMicro: String(3n * ECHO_COST), calls: 3 });
  const miner = now.miners.find((each: { minerHotkey: string }) =>
    each.minerHotkey === submitted.minerHotkey
  );
  assert.deepEqual(miner.byValidator, [{
    validatorHotkey: VALIDATOR.hotkey,
    spendMicro: String(2n * ECHO_COST),
    calls: 2,
  }]);
  assert.deepEqual(
    miner.byOutcome.map((each: { outcome: string; calls: number }) => [each.outcome, each.calls]),
    [
      ["submitted", 2],
      ["expired", 0],
      ["live", 0],
    ],
  );

  // The lease was claimed on the storage's clock (the real one), a moment after the service's started.
  service.clock.advance(LEASE_MS + GRACE_MS + 60_000);
  const later = await report();
  assert.deepEqual(later.rows, ordered([row(submitted, "submitted", 2), row(open, "expired", 1)]));
  const csv = await report("&format=csv");
  assert.deepEqual(csv.split("\r\n"), [
    "minerHotkey,validatorHotkey,outcome,leases,spendMicro,calls",
    ...later.rows.map((each: Row) =>
      `${each.minerHotkey},${each.validatorHotkey},${each.outcome},1,${each.spendMicro},${each.calls}`
    ),
    "",
  ]);

  const byValidator = await service.request(
    `/v1/usage?from=${today}&to=${today}&by=validator`,
    keyInit(apiKey),
  );
  assert.deepEqual((await byValidator.json()).values, [
    { value: VALIDATOR.hotkey, spendMicro: String(3n * ECHO_COST), calls: 3 },
  ]);
});
