/**
 * A miner's daily cap on validator completions under racing calls, as the validator route will
 * bill them (`billedCall` with the miner's cap and the validator named): two service instances on
 * one store, an org funded far beyond the cap, the cap worth exactly K worst-case holds, and a
 * provider whose usage costs exactly the hold.
 */
import assert from "node:assert/strict";
import { type ChatMessage, promptTokenBound } from "../../actors/gateway/mod.ts";
import { ServiceError, silentLogger } from "../../actors/kernel/mod.ts";
import { billedCall } from "../../routes/gateway/billed_call.ts";
import { HOTKEY_A } from "../support/access.ts";
import { adapterTest } from "../support/adapters.ts";
import { allLedgerEntries, ledgerSum } from "../support/ledger.ts";
import type { TestService } from "../support/test_service.ts";
import { FAKE_CALL, FAKE_HOLD, gatewayWorld, registerMiner, usageOf } from "./gateway_service.ts";

const K = 23;
const CALLS = 200;
const VALIDATOR = "5Fpfx4iDtrrY99VGkQnLXASytC2y9Z3o8KUyTtD4w7o5SZcA";

function usageAtBound(body: Record<string, unknown>) {
  return {
    promptTokens: promptTokenBound(body.messages as ChatMessage[]),
    completionTokens: Number(body.max_tokens),
  };
}

/** One validator completion for `HOTKEY_A`, billed to its org through `service`. */
function validatorCall(service: TestService, orgId: string, i: number) {
  const deps = {
    ...service.gateway,
    askOrg: service.askOrg,
    clock: service.clock.now,
    log: silentLogger,
  };
  return billedCall(deps, FAKE_CALL, {
    orgId,
    requestId: `validator-call-${i}`,
    minerHotkey: HOTKEY_A,
    validatorHotkey: VALIDATOR,
    cap: { minerHotkey: HOTKEY_A, limitMicro: FAKE_HOLD * BigInt(K) },
  });
}

adapterTest(
  "200 racing validator completions on two instances: exactly K fit the miner's daily cap, the rest 402 spend_cap_reached",
  { needs: "concurrency" },
  async (adapter) => {
    await using w = await gatewayWorld({
      storage: adapter.storage,
      creditMicro: "100000000",
      fake: { usage: usageAtBound },
    });
    await registerMiner(w.service.request, w.orgId, HOTKEY_A);
    const peer = await w.openPeer(await adapter.openAnother());
    const outcomes = await Promise.allSettled(
      Array.from({ length: CALLS }, (_, i) => validatorCall([w.service, peer][i % 2]!, w.orgId, i)),
    );
    const ok = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
    const codes = outcomes.flatMap((o) =>
      o.status === "rejected" ? [o.reason instanceof ServiceError ? o.reason.code : String(o.reason)] : []
    );
    assert.equal(ok.length, K, JSON.stringify(Object.groupBy(codes, (c) => c)));
    assert.ok(codes.every((c) => c === "spend_cap_reached"), JSON.stringify(codes));
    assert.equal(w.fake.requests.length, K, "a refused call never reaches the provider");

    const { billing } = w.service.storage;
    const day = new Date(w.service.clock.now()).toISOString().slice(0, 10);
    const charged = ok.reduce((sum, r) => sum + r.costMicro, 0n);
    assert.equal(charged, FAKE_HOLD * BigInt(K));
    assert.equal(await billing.dailySpend(HOTKEY_A, day), charged, "the counter is what was charged");
    const account = await billing.getAccount(w.orgId);
    assert.deepEqual([account?.balanceMicro, account?.heldMicro], [100_000_000n - charged, 0n]);
    assert.equal(await ledgerSum(billing, w.orgId), account?.balanceMicro);
    const debits = (await allLedgerEntries(billing, w.orgId)).filter((e) => e.kind === "debit");
    assert.equal(debits.length, K);
    assert.equal(-debits.reduce((sum, d) => sum + d.amountMicro, 0n), charged);
    const usage = await usageOf(w.service.request, w.orgId);
    assert.equal(usage.length, K);
    assert.ok(usage.every((u) => u.minerHotkey === HOTKEY_A));
    assert.ok(usage.every((u) => (u.metadata as Record<string, unknown>).validatorHotkey === VALIDATOR));
    assert.deepEqual(await billing.listHolds(w.orgId), []);
  },
);
