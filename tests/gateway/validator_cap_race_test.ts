/**
 * A miner's daily cap on validator completions under racing signed calls to
 * `POST /v1/gateway/validator/completions` on two service instances sharing one store: the
 * miner's org funded far beyond the cap, the cap worth exactly K worst-case holds, and a provider
 * whose usage costs exactly the hold (so no success frees any of the cap).
 */
import assert from "node:assert/strict";
import { type ChatMessage, promptTokenBound } from "../../actors/gateway/mod.ts";
import { utcDay } from "../../storage/billing_store.ts";
import { addCredits } from "../support/access.ts";
import { adapterTest } from "../support/adapters.ts";
import { FakeOpenAi } from "../support/fake_openai.ts";
import { allLedgerEntries, ledgerSum } from "../support/ledger.ts";
import { openLoop, openSecondInstance, signedInit, testSigner } from "../support/validator_loop.ts";
import { FAKE_CALL, FAKE_HOLD, FAKE_KEY_ENV, providersFor, usageOf } from "./gateway_service.ts";

const K = 23;
const CALLS = 200;
const VALIDATORS = [testSigner("validator-0"), testSigner("validator-1")];
const MINER = testSigner("miner-0");
const PATH = "/v1/gateway/validator/completions";

function usageAtBound(body: Record<string, unknown>) {
  return {
    promptTokens: promptTokenBound(body.messages as ChatMessage[]),
    completionTokens: Number(body.max_tokens),
  };
}

adapterTest(
  "200 racing validator completions on two instances: exactly K fit the miner's daily cap, the rest 402 spend_cap_reached",
  { needs: "concurrency" },
  async (adapter) => {
    await using fake = new FakeOpenAi({ usage: usageAtBound });
    const providersFile = await Deno.makeTempFile({ suffix: ".json" });
    await Deno.writeTextFile(providersFile, JSON.stringify(providersFor(fake, 10_000)));
    const env = {
      FGW_PROVIDERS_FILE: providersFile,
      FGW_VALIDATOR_DAILY_CAP_MICRO: String(FAKE_HOLD * BigInt(K)),
    };
    const loop = await openLoop({
      validators: VALIDATORS,
      miners: [MINER],
      events: 0,
      env,
      storage: adapter.storage,
      providerEnv: FAKE_KEY_ENV,
    });
    const peer = await openSecondInstance(loop, await adapter.openAnother(), env, FAKE_KEY_ENV);
    try {
      await addCredits(loop.service.request, loop.orgId, "100000000", "miner-org");
      const body = JSON.stringify(FAKE_CALL);
      const responses = await Promise.all(Array.from({ length: CALLS }, (_, i) => {
        const instance = [loop.service, peer][i % 2]!;
        const init = signedInit(VALIDATORS[i % 2]!, "POST", PATH, {
          nowMs: instance.clock.now(),
          body,
          minerHotkey: MINER.hotkey,
        });
        return instance.request(PATH, init);
      }));
      const bodies = await Promise.all(responses.map((r) => r.json()));
      const statuses = responses.map((r) => r.status);
      const ok = bodies.filter((_, i) => statuses[i] === 200);
      const codes = bodies.filter((_, i) => statuses[i] !== 200).map((b) => b.error.code);
      assert.equal(ok.length, K, JSON.stringify(Object.groupBy(codes, (c) => c)));
      assert.ok(codes.every((c) => c === "spend_cap_reached"), JSON.stringify(codes));
      assert.equal(fake.requests.length, K, "a refused call never reaches the provider");

      const { billing } = loop.service.storage;
      const charged = ok.reduce((sum, b) => sum + BigInt(b.costMicro), 0n);
      assert.equal(charged, FAKE_HOLD * BigInt(K));
      const day = utcDay(loop.service.clock.now());
      assert.equal(
        await billing.capSpent({ cap: "daily", minerHotkey: MINER.hotkey, day: day }),
        charged,
        "the counter is what was charged",
      );
      const account = await billing.getAccount(loop.orgId);
      assert.deepEqual([account?.balanceMicro, account?.heldMicro], [100_000_000n - charged, 0n]);
      assert.equal(await ledgerSum(billing, loop.orgId), account?.balanceMicro);
      const debits = (await allLedgerEntries(billing, loop.orgId)).filter((e) => e.kind === "debit");
      assert.equal(debits.length, K, "one debit per 2xx");
      assert.equal(-debits.reduce((sum, d) => sum + d.amountMicro, 0n), charged);
      const usage = await usageOf(loop.service.request, loop.orgId);
      assert.equal(usage.length, K);
      assert.ok(usage.every((u) => u.minerHotkey === MINER.hotkey));
      const validators = new Set(usage.map((u) => (u.metadata as Record<string, unknown>).validatorHotkey));
      assert.ok([...validators].every((v) => VALIDATORS.some((s) => s.hotkey === v)));
      assert.deepEqual(await billing.listHolds(loop.orgId), []);
    } finally {
      await peer.actors.drain();
      await loop.service.actors.drain();
      await Deno.remove(providersFile);
    }
  },
);
