/**
 * A miner's daily cap on validator completions, held by the OrgActor of the miner's org: the
 * hold is refused with 402 `spend_cap_reached` past the cap, and the hold, its settle, its release
 * (the hold-expiry job's too) move the counter of the UTC day of the hold.
 */
import assert from "node:assert/strict";
import { type AskOrg, holdExpiryJob } from "../../actors/billing/mod.ts";
import { ManualClock, ServiceError } from "../../actors/kernel/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import { HOTKEY_A } from "../support/access.ts";
import { adapterTest } from "../support/adapters.ts";
import { runJobOnce } from "../support/jobs.ts";
import { ledgerSum } from "../support/ledger.ts";
import { creditedMinerOrg } from "../support/miner_org.ts";

const ORG = "org_miner";
const CAP = { minerHotkey: HOTKEY_A, limitMicro: 250n };
const USAGE = { description: "echo/echo-1", metadata: { validatorHotkey: "5validator" } };
/** 23:59:00 UTC on 2026-03-01. */
const LATE_EVENING = Date.UTC(2026, 2, 1, 23, 59);

function minerOrg(storage: Storage): Promise<{ ask: AskOrg; clock: ManualClock }> {
  return creditedMinerOrg(storage, { orgId: ORG, nowMs: LATE_EVENING, creditMicro: 10_000n });
}

function refusal(code: string, details: Record<string, unknown>) {
  return (error: unknown) => {
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.code, code);
    assert.deepEqual(error.details, details);
    return true;
  };
}

adapterTest(
  "a capped reserve past the miner's daily cap is 402 spend_cap_reached, saying what is left",
  async ({ storage }) => {
    const { ask } = await minerOrg(storage);
    await ask(ORG, { type: "reserve", amountMicro: 200n, holdId: "call-1", cap: CAP });
    await assert.rejects(
      ask(ORG, { type: "reserve", amountMicro: 51n, holdId: "call-2", cap: CAP }),
      refusal("spend_cap_reached", {
        cap: "daily",
        minerHotkey: HOTKEY_A,
        day: "2026-03-01",
        capMicro: "250",
        spentMicro: "200",
        requestedMicro: "51",
      }),
    );
    await ask(ORG, { type: "reserve", amountMicro: 50n, holdId: "call-3", cap: CAP });
    assert.equal(
      await storage.billing.capSpent({ cap: "daily", minerHotkey: HOTKEY_A, day: "2026-03-01" }),
      250n,
    );
    // The org's own money is another limit: an uncapped call still fits, and the cap is no credit.
    await ask(ORG, { type: "reserve", amountMicro: 9_000n, holdId: "customer" });
    const { availableMicro } = await ask(ORG, { type: "balance" });
    assert.equal(availableMicro, 10_000n - 250n - 9_000n);
  },
);

adapterTest(
  "the counter is the hold's day's: settle after midnight, release and expiry all move that day",
  async ({ storage }) => {
    const { ask, clock } = await minerOrg(storage);
    const spent = (day: string) => storage.billing.capSpent({ cap: "daily", minerHotkey: HOTKEY_A, day });
    await ask(ORG, { type: "reserve", amountMicro: 200n, holdId: "late", cap: CAP });
    clock.advance(120_000); // 00:01 on 2026-03-02
    const settled = await ask(ORG, { type: "settle", holdId: "late", costMicro: 80n, usage: USAGE });
    assert.equal(settled.availableAfterMicro, 10_000n - 80n);
    assert.equal(await spent("2026-03-01"), 80n, "charged to the day the hold was taken");
    assert.equal(await spent("2026-03-02"), 0n);
    await ask(ORG, { type: "reserve", amountMicro: 250n, holdId: "today", cap: CAP });
    assert.equal(await spent("2026-03-02"), 250n, "a new day has the whole cap");
    assert.deepEqual(await ask(ORG, { type: "release", holdId: "today" }), { released: true });
    assert.equal(await spent("2026-03-02"), 0n);
    await ask(ORG, { type: "reserve", amountMicro: 100n, holdId: "abandoned", cap: CAP });
    clock.advance(60_000);
    const job = holdExpiryJob({ billing: storage.billing, askOrg: ask, intervalMs: 1_000 });
    await runJobOnce(job, { leases: storage.jobLeases, nowMs: clock.now() });
    assert.equal(await spent("2026-03-02"), 0n, "an expired hold gives its part of the cap back");
    const account = await storage.billing.getAccount(ORG);
    assert.deepEqual([account?.balanceMicro, account?.heldMicro], [10_000n - 80n, 0n]);
    assert.equal(await ledgerSum(storage.billing, ORG), 10_000n - 80n);
  },
);

adapterTest("when both the cap and the balance refuse, the answer is the cap's", async ({ storage }) => {
  const { ask } = await minerOrg(storage);
  await assert.rejects(
    ask(ORG, { type: "reserve", amountMicro: 20_000n, holdId: "huge", cap: CAP }),
    (error: unknown) => error instanceof ServiceError && error.code === "spend_cap_reached",
  );
  await assert.rejects(
    ask(ORG, {
      type: "reserve",
      amountMicro: 20_000n,
      holdId: "huge-2",
      cap: { ...CAP, limitMicro: 30_000n },
    }),
    (error: unknown) => error instanceof ServiceError && error.code === "insufficient_credits",
  );
  assert.equal(
    await storage.billing.capSpent({ cap: "daily", minerHotkey: HOTKEY_A, day: "2026-03-01" }),
    0n,
  );
});
