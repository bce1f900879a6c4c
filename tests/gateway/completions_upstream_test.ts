import assert from "node:assert/strict";
import { allLedgerEntries, ledgerSum } from "../support/ledger.ts";
import { sampleValue } from "../support/prometheus.ts";
import type { FakeLlmMode } from "../support/fake_openai.ts";
import { FAKE_CALL, FAKE_HOLD, type GatewayWorld, gatewayWorld, usageOf } from "./gateway_service.ts";

/** Nothing held, no usage written, the balance untouched. */
async function assertUncharged(w: GatewayWorld, balanceMicro: bigint): Promise<void> {
  const account = await w.service.storage.billing.getAccount(w.orgId);
  assert.deepEqual([account?.balanceMicro, account?.heldMicro], [balanceMicro, 0n]);
  assert.deepEqual(await w.service.storage.billing.listHolds(w.orgId), []);
  assert.equal(await w.balance(), String(balanceMicro));
}

Deno.test("a call to a real adapter is charged its provider's usage with markup", async () => {
  await using w = await gatewayWorld({
    creditMicro: "1000",
    fake: { usage: () => ({ promptTokens: 31, completionTokens: 9 }) },
  });
  const response = await w.complete(FAKE_CALL);
  const body = await response.json();
  assert.equal(response.status, 200, JSON.stringify(body));
  // 31 × 1 + 9 × 2 = 49; markup 500 bps: 2.45 → 3; 52.
  assert.deepEqual(body, {
    provider: "fake",
    model: "gpt-test",
    output: "reply: Will it rain?",
    usage: { promptTokens: 31, completionTokens: 9, totalTokens: 40 },
    costMicro: "52",
    providerCostMicro: "49",
    markupBps: 500,
    balanceAfterMicro: "948",
  });
  assert.equal(w.fake.requests[0]?.headers.get("authorization"), "Bearer sk-test-openai");
  await assertUncharged(w, 948n);
});

Deno.test("every upstream failure answers its status, is not charged, and releases the hold", async () => {
  await using w = await gatewayWorld({ creditMicro: "1000" });
  const cases: [FakeLlmMode, number, string][] = [
    ["server_error", 502, "upstream_error"],
    ["garbage", 502, "upstream_error"],
    ["wrong_shape", 502, "upstream_error"],
    ["unauthorized", 502, "upstream_error"],
    ["rate_limited", 503, "unavailable"],
    ["slow", 504, "upstream_timeout"],
  ];
  for (const [mode, status, code] of cases) {
    w.fake.respondNext(mode);
    const response = await w.complete(FAKE_CALL);
    const body = await response.json();
    assert.equal(response.status, status, `${mode}: ${JSON.stringify(body)}`);
    assert.equal(body.error.code, code, mode);
    if (mode === "rate_limited") assert.equal(response.headers.get("retry-after"), "7");
    await assertUncharged(w, 1000n);
  }
  // A model the catalog lists but the provider no longer serves: its 404 is the request's fault.
  const retired = await w.complete({ ...FAKE_CALL, model: "gpt-retired" });
  const refusal = await retired.json();
  assert.equal(retired.status, 400, JSON.stringify(refusal));
  assert.equal(refusal.error.code, "invalid_request");
  assert.match(refusal.error.details.reason, /gpt-retired/);
  await assertUncharged(w, 1000n);
  const afterwards = await w.complete(FAKE_CALL);
  assert.equal(afterwards.status, 200, "the fake serves again once its queued failures are spent");
  assert.equal((await usageOf(w.service.request, w.orgId)).length, 1);
});

Deno.test("a provider reply without usage is charged the whole hold, and counted", async () => {
  await using w = await gatewayWorld({ creditMicro: "1000" });
  w.fake.respondNext("no_usage");
  const response = await w.complete(FAKE_CALL);
  const body = await response.json();
  assert.equal(response.status, 200, JSON.stringify(body));
  assert.equal(body.costMicro, String(FAKE_HOLD));
  assert.deepEqual(body.usage, { promptTokens: 157, completionTokens: 64, totalTokens: 221 });
  assert.equal(body.balanceAfterMicro, String(1000n - FAKE_HOLD));
  await assertUncharged(w, 1000n - FAKE_HOLD);
  const [usage] = await usageOf(w.service.request, w.orgId);
  assert.equal((usage?.metadata as Record<string, unknown>).basis, "hold_no_usage");
  const metrics = await (await w.service.request("/metrics")).text();
  assert.equal(
    sampleValue(metrics, "fgw_gateway_charges_total", { provider: "fake", basis: "hold_no_usage" }),
    1,
  );
});

Deno.test("Σ costMicro of the settled calls equals Σ of the org's gateway debits, one debit per call", async () => {
  await using w = await gatewayWorld({ creditMicro: "100000" });
  const modes: FakeLlmMode[] = ["success", "server_error", "no_usage", "success", "rate_limited", "success"];
  const charged: bigint[] = [];
  for (const [i, mode] of modes.entries()) {
    w.fake.respondNext(mode);
    const call = i % 2 === 0 ? FAKE_CALL : { ...FAKE_CALL, provider: "echo", model: "echo-1" };
    const response = await w.complete(call);
    const body = await response.json();
    if (response.status === 200) charged.push(BigInt(body.costMicro));
  }
  const usage = await usageOf(w.service.request, w.orgId);
  const debits = (await allLedgerEntries(w.service.storage.billing, w.orgId)).filter((e) =>
    e.kind === "debit"
  );
  assert.equal(usage.length, charged.length);
  assert.equal(debits.length, charged.length);
  const sum = (values: bigint[]) => values.reduce((a, b) => a + b, 0n);
  assert.equal(sum(usage.map((u) => BigInt(String(u.amountMicro)))), sum(charged));
  assert.equal(
    sum(usage.map((u) => BigInt(String((u.metadata as Record<string, unknown>).costMicro)))),
    sum(charged),
  );
  assert.equal(-sum(debits.map((d) => d.amountMicro)), sum(charged));
  assert.equal(await ledgerSum(w.service.storage.billing, w.orgId), 100000n - sum(charged));
  await assertUncharged(w, 100000n - sum(charged));
});
