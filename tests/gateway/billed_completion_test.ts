/**
 * `runBilledCompletion` wired to a real OrgActor on Deno KV, as the completion route wires it:
 * the hold id comes from the request id, settle writes the usage record, and the adapters are the
 * real ones against the fake OpenAI server (or the built-in echo).
 */
import assert from "node:assert/strict";
import { type AskOrg, orgActorKind, orgAsker } from "../../actors/billing/mod.ts";
import {
  type BilledCompletion,
  completionUsage,
  EchoAdapter,
  OpenAiAdapter,
  promptTokenBound,
  type ProviderAdapter,
  ProviderCatalog,
  type ResolvedModel,
  runBilledCompletion,
} from "../../actors/gateway/mod.ts";
import { type LogLine, ManualClock, ServiceError } from "../../actors/kernel/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import type { Storage } from "../../storage/storage.ts";
import { FakeOpenAi, type FakeOpenAiOptions } from "../support/fake_openai.ts";
import { allLedgerEntries, ledgerSum } from "../support/ledger.ts";
import { fakeProvider, recordedHttp } from "./provider_fixtures.ts";

const ORG = "org_gateway";
const MESSAGES = [{ role: "user" as const, content: "Will it rain?" }]; // 13 bytes
const REQUEST = { model: "gpt-test", messages: MESSAGES, maxTokens: 64 };
/**
 * Prices 1,000,000 / 2,000,000 micro per MTok, markup 500 bps. The bound: 128 + 16 + 13 = 157
 * prompt tokens and 64 completion tokens → 157 + 128 = 285, markup 14.25 → 15: a hold of 300.
 */
const HOLD = 300n;

interface World {
  storage: Storage;
  ask: AskOrg;
  clock: ManualClock;
  logs: LogLine[];
  fake: FakeOpenAi;
  resolved: ResolvedModel;
  adapter: ProviderAdapter;
  [Symbol.asyncDispose](): Promise<void>;
}

async function world(balanceMicro: bigint, fakeOptions: FakeOpenAiOptions = {}): Promise<World> {
  const dir = await Deno.makeTempDir({ prefix: "fgw_gateway_" });
  const storage = await openKvStorage(`${dir}/store.sqlite`);
  const clock = new ManualClock();
  const kind = orgActorKind({
    orgs: storage.orgs,
    billing: storage.billing,
    clock: clock.now,
    holdTtlMs: 600_000,
  });
  const ask = orgAsker(new ActorSystem({ clock: clock.now }), kind);
  await ask(ORG, { type: "create", name: "Acme" });
  if (balanceMicro > 0n) await ask(ORG, { type: "credit", amountMicro: balanceMicro, reference: "initial" });
  const fake = new FakeOpenAi(fakeOptions);
  const provider = fakeProvider("openai", fake.baseUrl, { markupBps: 500, timeoutMs: 200 });
  const resolved = new ProviderCatalog([provider]).resolve(provider.id, "gpt-test");
  const adapter = new OpenAiAdapter(provider, recordedHttp());
  const logs: LogLine[] = [];
  return {
    storage,
    ask,
    clock,
    logs,
    fake,
    resolved,
    adapter,
    async [Symbol.asyncDispose]() {
      await fake.close();
      await storage.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** One call as the completion route makes it: hold id from the request id, usage written with the settle. */
function billedCall(
  w: World,
  requestId: string,
  overrides: { adapter?: ProviderAdapter; maxTokens?: number } = {},
) {
  const holdId = `gw_${requestId}`;
  return runBilledCompletion({
    resolved: w.resolved,
    request: { ...REQUEST, maxTokens: overrides.maxTokens ?? 64 },
  }, {
    reserve: (amountMicro) => w.ask(ORG, { type: "reserve", amountMicro, holdId }),
    settle: async (charge) => {
      const usage = completionUsage({ provider: w.resolved.provider.id, model: "gpt-test", charge }, {
        requestId,
        keyId: "key_1",
      });
      return await w.ask(ORG, { type: "settle", holdId, costMicro: charge.costMicro, usage });
    },
    release: () => w.ask(ORG, { type: "release", holdId }),
    adapter: overrides.adapter ?? w.adapter,
    clock: w.clock.now,
    log: (line) => w.logs.push(line),
    requestId,
  });
}

/** Balance, holds and the ledger agree, and show `balanceMicro` with nothing held. */
async function assertAccount(w: World, balanceMicro: bigint): Promise<void> {
  const account = await w.storage.billing.getAccount(ORG);
  assert.equal(account?.balanceMicro, balanceMicro);
  assert.equal(account?.heldMicro, 0n);
  assert.deepEqual(await w.storage.billing.listHolds(ORG), []);
  assert.equal(await ledgerSum(w.storage.billing, ORG), balanceMicro);
}

function code(expected: string) {
  return (error: unknown) => error instanceof ServiceError && error.code === expected;
}

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

for (
  const [mode, answer] of [
    ["server_error", "upstream_error"],
    ["slow", "upstream_timeout"],
    ["rate_limited", "unavailable"],
    ["garbage", "upstream_error"],
    ["unauthorized", "upstream_error"],
  ] as const
) {
  Deno.test(`a provider failure (${mode}) releases the hold and charges nothing: ${answer}`, async () => {
    await using w = await world(1_000n);
    w.fake.respondNext(mode);
    await assert.rejects(billedCall(w, `req_${mode}`), code(answer));
    assert.equal(w.fake.requests.length, 1);
    await assertAccount(w, 1_000n);
    assert.equal((await allLedgerEntries(w.storage.billing, ORG)).length, 1); // the credit alone
  });
}

Deno.test("a provider refusing the operator's key is logged at error level, without the key", async () => {
  await using w = await world(1_000n);
  w.fake.respondNext("unauthorized");
  await assert.rejects(billedCall(w, "req_401"), code("upstream_error"));
  const errors = w.logs.filter((line) => line.level === "error");
  assert.equal(errors.length, 1);
  assert.equal(errors[0]?.failure, "account");
  assert.equal(errors[0]?.status, 401);
  assert.ok(!JSON.stringify(w.logs).includes("sk-test-openai"));
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
  const charged: string[] = [];
  const result = await runBilledCompletion({ resolved: w.resolved, request: REQUEST }, {
    reserve: (amountMicro) => w.ask(ORG, { type: "reserve", amountMicro, holdId: "h_over" }),
    settle: (charge) =>
      w.ask(ORG, {
        type: "settle",
        holdId: "h_over",
        costMicro: charge.costMicro,
        usage: { description: "x" },
      }),
    release: () => w.ask(ORG, { type: "release", holdId: "h_over" }),
    adapter: w.adapter,
    clock: w.clock.now,
    log: () => {},
    onCharge: (provider, basis) => charged.push(`${provider}:${basis}`),
  });
  assert.equal(result.basis, "hold_over_bound");
  assert.equal(result.costMicro, HOLD);
  assert.equal(result.providerCostMicro, 10_128n); // what the provider reported it cost
  assert.deepEqual(charged, ["fake-openai:hold_over_bound"]);
  await assertAccount(w, 1_000n - HOLD);
});

Deno.test("a reserve whose outcome is unknown (its caller timed out) is released", async () => {
  await using w = await world(1_000n);
  const call = runBilledCompletion({ resolved: w.resolved, request: REQUEST }, {
    reserve: async (amountMicro) => {
      await w.ask(ORG, { type: "reserve", amountMicro, holdId: "h_lost" });
      throw new ServiceError("unavailable", "Timed out waiting for the org", { retryAfterSeconds: 1 });
    },
    settle: () => Promise.reject(new Error("never settled")),
    release: () => w.ask(ORG, { type: "release", holdId: "h_lost" }),
    adapter: w.adapter,
    clock: w.clock.now,
    log: () => {},
  });
  await assert.rejects(call, code("unavailable"));
  assert.equal(w.fake.requests.length, 0);
  await assertAccount(w, 1_000n);
});

Deno.test("a release that fails is logged and never hides the provider's failure", async () => {
  await using w = await world(1_000n);
  w.fake.respondNext("server_error");
  const call = runBilledCompletion({ resolved: w.resolved, request: REQUEST }, {
    reserve: (amountMicro) => w.ask(ORG, { type: "reserve", amountMicro, holdId: "h_stuck", ttlMs: 1_000 }),
    settle: () => Promise.reject(new Error("never settled")),
    release: () => Promise.reject(new Error("storage down")),
    adapter: w.adapter,
    clock: w.clock.now,
    log: (line) => w.logs.push(line),
  });
  await assert.rejects(call, code("upstream_error"));
  assert.ok(w.logs.some((line) => line.level === "error" && /cannot release hold/.test(line.msg)));
  // The hold stays until it expires; then the next reserve frees it, and nothing was charged.
  w.clock.advance(1_000);
  await w.ask(ORG, { type: "reserve", amountMicro: 1_000n, holdId: "h_next" });
  await w.ask(ORG, { type: "release", holdId: "h_next" });
  await assertAccount(w, 1_000n);
});

Deno.test("an adapter failing in an unexpected way is a 502, never a 500, and releases the hold", async () => {
  await using w = await world(1_000n);
  const broken: ProviderAdapter = { complete: () => Promise.reject(new RangeError("bug in an adapter")) };
  await assert.rejects(billedCall(w, "req_bug", { adapter: broken }), code("upstream_error"));
  await assertAccount(w, 1_000n);
});

Deno.test("the echo provider is billed from its own usage", async () => {
  await using w = await world(1_000n);
  const echo = ProviderCatalog.builtIn().resolve("echo", "echo-1");
  const result = await runBilledCompletion({
    resolved: echo,
    request: { ...REQUEST, model: "echo-1", maxTokens: 2 },
  }, {
    reserve: (amountMicro) => w.ask(ORG, { type: "reserve", amountMicro, holdId: "h_echo" }),
    settle: (charge) =>
      w.ask(ORG, {
        type: "settle",
        holdId: "h_echo",
        costMicro: charge.costMicro,
        usage: { description: "echo" },
      }),
    release: () => w.ask(ORG, { type: "release", holdId: "h_echo" }),
    adapter: new EchoAdapter(),
    clock: w.clock.now,
    log: () => {},
  });
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
