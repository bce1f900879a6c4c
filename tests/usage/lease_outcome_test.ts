import assert from "node:assert/strict";
import { leaseOutcome } from "../../actors/usage/mod.ts";
import type { LeaseCalls, LeaseState } from "../../storage/usage_store.ts";

const CLAIMED_AT = 1_000_000;
const EXPIRES_AT = CLAIMED_AT + 600_000;
const AT = { nowMs: EXPIRES_AT, graceMs: 60_000 };

function calls(lease: Partial<LeaseState> | null, leasedAtMs: number | null = CLAIMED_AT): LeaseCalls {
  return {
    minerHotkey: "5Fminer",
    validatorHotkey: "5Hvalidator1",
    agentPredictionId: "ap_1",
    leasedAtMs,
    calls: 1,
    spendMicro: 10n,
    lease: lease && {
      status: "in_progress",
      validatorHotkey: "5Hvalidator1",
      leasedAtMs: CLAIMED_AT,
      expiresAtMs: EXPIRES_AT,
      ...lease,
    },
  };
}

Deno.test("a lease's calls count as submitted when its prediction came under their claim", () => {
  assert.equal(leaseOutcome(calls({ status: "submitted" }), AT), "submitted");
  assert.equal(leaseOutcome(calls({ status: "scored" }), AT), "submitted");
  assert.equal(leaseOutcome(calls({ status: "submitted", leasedAtMs: CLAIMED_AT + 5 }), AT), "expired");
});

Deno.test("a lease's calls count as live while their claim may still submit, expired after", () => {
  assert.equal(leaseOutcome(calls({}), AT), "live");
  assert.equal(leaseOutcome(calls({}), { ...AT, nowMs: EXPIRES_AT + 60_000 }), "live");
  assert.equal(leaseOutcome(calls({}), { ...AT, nowMs: EXPIRES_AT + 60_001 }), "expired");
  assert.equal(
    leaseOutcome(calls({ leasedAtMs: CLAIMED_AT + 700_000 }), AT),
    "expired",
    "claimed again since",
  );
  assert.equal(leaseOutcome(calls({ status: "available" }), AT), "expired");
  assert.equal(leaseOutcome(calls({ status: "retired" }), AT), "expired");
  assert.equal(leaseOutcome(calls(null), AT), "expired", "an assignment no longer stored");
});

Deno.test("calls recorded without their claim are matched by the validator that made them", () => {
  assert.equal(leaseOutcome(calls({ status: "submitted" }, null), AT), "submitted");
  assert.equal(leaseOutcome(calls({ status: "submitted", validatorHotkey: "5Hother" }, null), AT), "expired");
  assert.equal(leaseOutcome(calls({}, null), AT), "live");
});
