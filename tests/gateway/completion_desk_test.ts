/**
 * The `CompletionDesk` billing a real OrgActor on Deno KV, as the completion route asks it: the
 * hold id comes from the request id, settle writes the usage record, and the adapters are the
 * real ones against the fake OpenAI server (or the built-in echo).
 */
import assert from "node:assert/strict";
import {
  type BilledCompletion,
  EchoAdapter,
  promptTokenBound,
  ProviderCatalog,
} from "../../actors/gateway/mod.ts";
import { Metrics } from "../../actors/kernel/mod.ts";
import { allLedgerEntries } from "../support/ledger.ts";
import { sampleValue } from "../support/prometheus.ts";
import {
  assertAccount,
  billedCall,
  CALL,
  code,
  deskOf,
  HOLD,
  MESSAGES,
  ORG,
  payer,
  REQUEST,
  world,
} from "./billing_world.ts";

Deno.test("a completed call is charged its usage's cost, with a usage record written by the settle", async () => {
  await using w = await world(1_000n, {
    usage: () => {
      w.clock.advance(250); // the upstream call takes 250 ms of the injected clock
      return { promptTokens: 31, completionTokens: 9 };
    },
  });
  const result = await billedCall(w, "req_ok");
  // 31 × 1 + 9 × 2 = 49; markup 2.45 → 3; 52
  assert.deepEqual(
    result,
    {
      provider: "fake-openai",
      model: "gpt-test",
      output: "reply: Will it rain?",
      usage: { promptTokens: 31, completionTokens: 9, totalTokens: 40 },
      providerCostMicro: 49n,
      costMicro: 52n,
      markupBps: 500,
      holdMicro: HOLD,
      basis: "usage",
      latencyMs: 250,
      balanceAfterMicro: 948n,
    } satisfies BilledCompletion,
  );
  await assertAccount(w, 948n);
  const [usage] = await w.storage.billing.listUsage(ORG, { limit: 10 });
  assert.equal(usage?.amountMicro, 52n);
  assert.equal(usage?.keyId, "key_1");
  assert.equal(usage?.description, "fake-openai/gpt-test");
  assert.deepEqual(usage?.metadata, {
    provider: "fake-openai",
    model: "gpt-test",
    promptTokens: 31,
    completionTokens: 9,
    totalTokens: 40,
    providerCostMicro: "49",
    costMicro: "52",
    holdMicro: "300",
    markupBps: 500,
    basis: "usage",
    latencyMs: 250,
    outcome: "settled",
    requestId: "req_ok",
  });
});

Deno.test("a call whose hold does not fit is 402 and never reaches the provider", async () => {
  await using w = await world(HOLD - 1n);
  await assert.rejects(billedCall(w, "req_poor"), code("insufficient_credits"));
  assert.equal(w.fake.requests.length, 0);
  await assertAccount(w, HOLD - 1n);
});

Deno.test("a maxTokens above the model's limit is 400 before anything is held", async () => {
  await using w = await world(1_000_000n);
  await assert.rejects(billedCall(w, "req_big", { maxTokens: 1001 }), code("invalid_request"));
  assert.equal(w.fake.requests.length, 0);
  await assertAccount(w, 1_000_000n);
});

Deno.test("a reply without usage is charged the whole hold, reporting the bound as its usage", async () => {
  await using w = await world(1_000n);
  w.fake.respondNext("no_usage");
  const result = await billedCall(w, "req_nousage");
  assert.equal(result.basis, "hold_no_usage");
  assert.equal(result.costMicro, HOLD);
  assert.equal(result.providerCostMicro, 285n);
  assert.deepEqual(result.usage, { promptTokens: 157, completionTokens: 64, totalTokens: 221 });
  await assertAccount(w, 1_000n - HOLD);
  assert.ok(w.logs.some((line) => line.level === "warn" && /no usage/.test(line.msg)));
});

Deno.test("usage costing more than the hold is charged the hold, never more", async () => {
  await using w = await world(1_000n, { usage: () => ({ promptTokens: 10_000, completionTokens: 64 }) });
  const metrics = new Metrics({ clock: w.clock.now });
  const desk = deskOf(w, { onCharge: (provider, basis) => metrics.gatewayCharged(provider, basis) });
  const result = await desk.complete(CALL, payer("req_over"));
  assert.equal(result.basis, "hold_over_bound");
  assert.equal(result.costMicro, HOLD);
  assert.equal(result.providerCostMicro, 10_128n); // what the provider reported it cost
  const charges = { provider: "fake-openai", basis: "hold_over_bound" };
  assert.equal(sampleValue(await metrics.render(), "fgw_gateway_charges_total", charges), 1);
  await assertAccount(w, 1_000n - HOLD);
});

Deno.test("the echo provider is billed from its own usage", async () => {
  await using w = await world(1_000n);
  const desk = deskOf(w, { catalog: ProviderCatalog.builtIn(), adapter: new EchoAdapter() });
  const result = await desk.complete(
    { ...REQUEST, provider: "echo", model: "echo-1", maxTokens: 2 },
    payer("req_echo"),
  );
  // hold: 157 + 2 = 159 micro; actual: ⌈13 / 4⌉ = 4 prompt + ⌈8 / 4⌉ = 2 completion → 6 micro
  assert.equal(result.holdMicro, 159n);
  assert.equal(result.output, "Will it ");
  assert.equal(result.costMicro, 6n);
  await assertAccount(w, 994n);
});

Deno.test("concurrent calls on an org funded for exactly K worst cases: K succeed, the rest are 402", async () => {
  const K = 4n;
  await using w = await world(K * HOLD, {
    // The provider reports exactly the bound, so a success frees nothing for the others.
    usage: () => ({ promptTokens: promptTokenBound(MESSAGES), completionTokens: 64 }),
  });
  const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => billedCall(w, `req_${i}`)));
  const ok = outcomes.filter((o) => o.status === "fulfilled");
  const refused = outcomes.filter((o) => o.status === "rejected" && code("insufficient_credits")(o.reason));
  assert.equal(ok.length, Number(K));
  assert.equal(refused.length, 20 - Number(K));
  assert.equal(w.fake.requests.length, Number(K));
  await assertAccount(w, 0n);
  const debits = (await allLedgerEntries(w.storage.billing, ORG)).filter((e) => e.kind === "debit");
  assert.deepEqual(debits.map((e) => e.amountMicro), Array(Number(K)).fill(-HOLD));
});
