/**
 * The money invariants of the completion route under racing calls, on both storage adapters:
 * two service instances on one store (PostgreSQL with DATABASE_URL: two connection pools; Deno KV:
 * two handles on one file, in this process), one org funded for exactly K worst-case holds, and
 * a provider that reports usage costing exactly the hold, so that no success frees anything.
 */
import assert from "node:assert/strict";
import { promptTokenBound } from "../../actors/gateway/mod.ts";
import type { ChatMessage } from "../../actors/gateway/mod.ts";
import { adapterTest } from "../support/adapters.ts";
import { allLedgerEntries, ledgerSum } from "../support/ledger.ts";
import {
  completionInit,
  COMPLETIONS,
  FAKE_CALL,
  FAKE_HOLD,
  gatewayWorld,
  usageOf,
} from "./gateway_service.ts";

const K = 37;
const CALLS = 200;

/** Usage at the hold's bound: every prompt token the bound allows and every one of `maxTokens`. */
function usageAtBound(body: Record<string, unknown>) {
  return {
    promptTokens: promptTokenBound(body.messages as ChatMessage[]),
    completionTokens: Number(body.max_tokens),
  };
}

adapterTest(
  "200 racing completions on two instances, funded for K holds: exactly K succeed, the rest 402, the money adds up",
  { needs: "concurrency" },
  async (adapter) => {
    await using w = await gatewayWorld({
      storage: adapter.storage,
      creditMicro: String(FAKE_HOLD * BigInt(K)),
      providerTimeoutMs: 10_000,
      fake: { usage: usageAtBound },
    });
    const peer = await w.openPeer(await adapter.openAnother());
    const instances = [w.service, peer];
    const responses = await Promise.all(
      Array.from(
        { length: CALLS },
        (_, i) => instances[i % 2]!.request(COMPLETIONS, completionInit(w.apiKey, FAKE_CALL)),
      ),
    );
    const bodies = await Promise.all(responses.map((r) => r.json()));
    const statuses = responses.map((r) => r.status);
    const ok = bodies.filter((_, i) => statuses[i] === 200);
    assert.equal(ok.length, K, `statuses: ${JSON.stringify(Object.groupBy(statuses, (s) => s))}`);
    assert.equal(
      statuses.filter((s) => s === 402).length,
      CALLS - K,
      JSON.stringify(bodies.filter((_, i) => statuses[i] !== 402 && statuses[i] !== 200)),
    );
    assert.ok(bodies.every((b, i) => statuses[i] !== 402 || b.error.code === "insufficient_credits"));
    assert.equal(w.fake.requests.length, K, "a refused call never reaches the provider");
    assert.ok(ok.every((b) => b.costMicro === String(FAKE_HOLD)), "usage at the bound costs the hold");

    const { billing } = w.service.storage;
    const account = await billing.getAccount(w.orgId);
    assert.deepEqual([account?.balanceMicro, account?.heldMicro], [0n, 0n]);
    assert.equal(await ledgerSum(billing, w.orgId), account?.balanceMicro, "balance == Σ ledger");
    assert.deepEqual(await billing.listHolds(w.orgId), [], "no hold left");
    const debits = (await allLedgerEntries(billing, w.orgId)).filter((e) => e.kind === "debit");
    assert.equal(debits.length, K, "one debit per 2xx");
    const charged = ok.reduce((sum, b) => sum + BigInt(b.costMicro), 0n);
    assert.equal(
      -debits.reduce((sum, d) => sum + d.amountMicro, 0n),
      charged,
      "Σ debits == Σ costMicro of 2xx",
    );
    const usage = await usageOf(w.service.request, w.orgId);
    assert.equal(usage.length, K, "one usage record per 2xx");
    assert.equal(new Set(usage.map((u) => u.holdId)).size, K);
    assert.ok(ok.every((b) => BigInt(b.balanceAfterMicro) >= 0n));
  },
);

adapterTest(
  "200 racing completions on two instances, settled or released in batches: money exact, never negative",
  { needs: "concurrency" },
  async (adapter) => {
    await using w = await gatewayWorld({
      storage: adapter.storage,
      creditMicro: String(FAKE_HOLD * BigInt(K)),
      providerTimeoutMs: 10_000,
    });
    const peer = await w.openPeer(await adapter.openAnother());
    const instances = [w.service, peer];
    // Every fourth call names a model the provider does not serve: its hold is released.
    const body = (i: number) => i % 4 === 0 ? { ...FAKE_CALL, model: "gpt-retired" } : FAKE_CALL;
    const responses = await Promise.all(
      Array.from(
        { length: CALLS },
        (_, i) => instances[i % 2]!.request(COMPLETIONS, completionInit(w.apiKey, body(i))),
      ),
    );
    const bodies = await Promise.all(responses.map((r) => r.json()));
    const statuses = responses.map((r) => r.status);
    assert.ok(
      statuses.every((s) => s !== 500),
      `statuses: ${JSON.stringify(Object.groupBy(statuses, (s) => s))}`,
    );
    const ok = bodies.filter((_, i) => statuses[i] === 200);
    assert.ok(ok.length > 0 && statuses.some((s) => s === 402), "some calls were charged, some refused");
    assert.ok(bodies.every((b, i) => statuses[i] !== 402 || b.error.code === "insufficient_credits"));

    const { billing } = w.service.storage;
    const account = await billing.getAccount(w.orgId);
    const charged = ok.reduce((sum, b) => sum + BigInt(b.costMicro), 0n);
    assert.deepEqual([account?.balanceMicro, account?.heldMicro], [FAKE_HOLD * BigInt(K) - charged, 0n]);
    assert.ok(
      account!.balanceMicro >= 0n && ok.every((b) => BigInt(b.balanceAfterMicro) >= 0n),
      "never negative",
    );
    assert.equal(await ledgerSum(billing, w.orgId), account?.balanceMicro, "balance == Σ ledger");
    assert.deepEqual(await billing.listHolds(w.orgId), [], "no hold left: every failed call was released");
    const debits = (await allLedgerEntries(billing, w.orgId)).filter((e) => e.kind === "debit");
    assert.equal(debits.length, ok.length, "one debit per 2xx");
    assert.equal((await usageOf(w.service.request, w.orgId)).length, ok.length, "one usage record per 2xx");
  },
);
