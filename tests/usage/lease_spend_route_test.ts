import assert from "node:assert/strict";
import { keyInit } from "../support/access.ts";
import type { LeasedWork } from "../support/validator_loop.ts";
import { openSpendLoop, SPEND_VALIDATOR as VALIDATOR, spendOnTwoLeases } from "../support/lease_spend.ts";
import { ECHO_COST } from "../gateway/gateway_service.ts";

const LEASE_MS = 600_000;
const GRACE_MS = 60_000;

interface Row {
  minerHotkey: string;
  validatorHotkey: string;
  outcome: string;
  leases: number;
  calls: number;
  spendMicro: string;
}

Deno.test("GET /v1/usage/leases shows the miners' LLM spend by validator and by lease outcome", async () => {
  const loop = await openSpendLoop({ FGW_LEASE_MS: String(LEASE_MS), FGW_LEASE_GRACE_MS: String(GRACE_MS) });
  await using service = loop.service;
  const { apiKey, submitted, open, today } = await spendOnTwoLeases(loop);
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
