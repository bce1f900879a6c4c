/**
 * The spend caps beside a miner's day, held by the OrgActor of the miner's org: a reserve naming
 * the validator and the lease is refused with 402 `spend_cap_reached` naming the first cap it does
 * not fit, alone or in a batch of reserves waiting together (docs/billing.md, "Spend caps of
 * validator completions").
 */
import assert from "node:assert/strict";
import type { AskOrg, SpendCaps } from "../../actors/billing/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import { HOTKEY_A } from "../support/access.ts";
import { adapterTest } from "../support/adapters.ts";
import { creditedMinerOrg } from "../support/miner_org.ts";

const ORG = "org_miner";
const VALIDATOR = "5HBcPkCPJuNzWBstouENkvnpsyEqo1dn9Sj4Q1oihXGro6Jg";
const NOON = Date.UTC(2026, 2, 1, 12);
const DAY = "2026-03-01";

function caps(agentPredictionId: string, limits: { validator: bigint; lease: bigint }): SpendCaps {
  return {
    minerHotkey: HOTKEY_A,
    limitMicro: 10_000n,
    validator: { hotkey: VALIDATOR, limitMicro: limits.validator },
    lease: { agentPredictionId, limitMicro: limits.lease },
  };
}

async function minerOrg(storage: Storage): Promise<AskOrg> {
  return (await creditedMinerOrg(storage, { orgId: ORG, nowMs: NOON, creditMicro: 100_000n })).ask;
}

function spendCapReached(details: Record<string, unknown>) {
  return (error: unknown) => {
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.code, "spend_cap_reached");
    assert.deepEqual(error.details, details);
    return true;
  };
}

adapterTest(
  "a reserve past its lease's cap or its validator's day is 402 spend_cap_reached naming that cap",
  async ({ storage }) => {
    const ask = await minerOrg(storage);
    const limits = { validator: 300n, lease: 250n };
    await ask(ORG, { type: "reserve", amountMicro: 200n, holdId: "a", cap: caps("ap_one", limits) });
    await assert.rejects(
      ask(ORG, { type: "reserve", amountMicro: 51n, holdId: "b", cap: caps("ap_one", limits) }),
      spendCapReached({
        cap: "lease",
        agentPredictionId: "ap_one",
        capMicro: "250",
        spentMicro: "200",
        requestedMicro: "51",
      }),
    );
    await assert.rejects(
      ask(ORG, { type: "reserve", amountMicro: 150n, holdId: "c", cap: caps("ap_two", limits) }),
      spendCapReached({
        cap: "validator",
        validatorHotkey: VALIDATOR,
        minerHotkey: HOTKEY_A,
        day: DAY,
        capMicro: "300",
        spentMicro: "200",
        requestedMicro: "150",
      }),
    );
    await ask(ORG, { type: "reserve", amountMicro: 100n, holdId: "d", cap: caps("ap_two", limits) });
    const spent = await Promise.all([
      storage.billing.capSpent({ cap: "daily", minerHotkey: HOTKEY_A, day: DAY }),
      storage.billing.capSpent({
        cap: "validator",
        validatorHotkey: VALIDATOR,
        minerHotkey: HOTKEY_A,
        day: DAY,
      }),
      storage.billing.capSpent({ cap: "lease", agentPredictionId: "ap_one" }),
      storage.billing.capSpent({ cap: "lease", agentPredictionId: "ap_two" }),
    ]);
    assert.deepEqual(spent, [300n, 300n, 200n, 100n]);
    assert.equal((await ask(ORG, { type: "balance" })).heldMicro, 300n);
  },
);

adapterTest("reserves of one lease waiting together stop at the lease's cap", async ({ storage }) => {
  const ask = await minerOrg(storage);
  const limits = { validator: 1_000n, lease: 55n };
  const outcomes = await Promise.allSettled(
    Array.from(
      { length: 20 },
      (_, i) => ask(ORG, { type: "reserve", amountMicro: 10n, holdId: `h${i}`, cap: caps("ap_one", limits) }),
    ),
  );
  const held = outcomes.filter((outcome) => outcome.status === "fulfilled");
  assert.equal(held.length, 5);
  for (const outcome of outcomes) {
    if (outcome.status === "rejected") {
      assert.ok(outcome.reason instanceof ServiceError && outcome.reason.code === "spend_cap_reached");
      assert.equal(outcome.reason.details?.cap, "lease");
    }
  }
  assert.equal(await storage.billing.capSpent({ cap: "lease", agentPredictionId: "ap_one" }), 50n);
  assert.equal((await ask(ORG, { type: "balance" })).heldMicro, 50n);
});

adapterTest("a cap's limit that is not an amount is 400 naming it", async ({ storage }) => {
  const ask = await minerOrg(storage);
  const bad = {
    ...caps("ap_one", { validator: 1n, lease: 1n }),
    lease: { agentPredictionId: "ap_one", limitMicro: -1n },
  };
  await assert.rejects(
    ask(ORG, { type: "reserve", amountMicro: 1n, holdId: "x", cap: bad }),
    (error: unknown) =>
      error instanceof ServiceError && error.code === "invalid_request" &&
      JSON.stringify(error.details).includes("cap.lease.limitMicro"),
  );
});
