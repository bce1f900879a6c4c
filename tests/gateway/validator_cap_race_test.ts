/**
 * The spend caps of validator completions under racing signed calls to
 * `POST /v1/gateway/validator/completions` on two service instances sharing one store: the
 * miner's org funded far beyond the caps, each cap worth an exact number of worst-case holds, and
 * a provider whose usage costs exactly the hold (so no success frees any of a cap, and "fits" is
 * exact). Each call names a lease its validator holds on the miner's agent.
 */
import assert from "node:assert/strict";
import { type ChatMessage, promptTokenBound } from "../../actors/gateway/mod.ts";
import type { Signer } from "../../actors/validators/mod.ts";
import { utcDay } from "../../storage/billing_store.ts";
import { addCredits } from "../support/access.ts";
import { adapterTest, type AdapterUnderTest } from "../support/adapters.ts";
import { FakeOpenAi } from "../support/fake_openai.ts";
import { allLedgerEntries, ledgerSum } from "../support/ledger.ts";
import {
  leaseAs,
  type Loop,
  openLoop,
  openSecondInstance,
  signedInit,
  testSigner,
} from "../support/validator_loop.ts";
import type { TestService } from "../support/test_service.ts";
import { FAKE_CALL, FAKE_HOLD, FAKE_KEY_ENV, providersFor, usageOf } from "./gateway_service.ts";

const VALIDATORS = [testSigner("validator-0"), testSigner("validator-1")];
const MINER = testSigner("miner-0");
const PATH = "/v1/gateway/validator/completions";
/** Far beyond every cap unless a test names it. */
const UNBOUNDED = String(FAKE_HOLD * 10_000n);

function usageAtBound(body: Record<string, unknown>) {
  return {
    promptTokens: promptTokenBound(body.messages as ChatMessage[]),
    completionTokens: Number(body.max_tokens),
  };
}

/** Two instances of a loop of `MINER` and the validators over one store, the caps of `caps`. */
interface Race {
  loop: Loop;
  peer: TestService;
  fake: FakeOpenAi;
  [Symbol.asyncDispose](): Promise<void>;
}

async function openRace(
  adapter: AdapterUnderTest,
  caps: Record<string, string>,
  events: number,
): Promise<Race> {
  const fake = new FakeOpenAi({ usage: usageAtBound });
  const providersFile = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(providersFile, JSON.stringify(providersFor(fake, 10_000)));
  const env = {
    FGW_PROVIDERS_FILE: providersFile,
    FGW_VALIDATOR_DAILY_CAP_MICRO: UNBOUNDED,
    FGW_VALIDATOR_MINER_DAILY_CAP_MICRO: UNBOUNDED,
    FGW_LEASE_LLM_CAP_MICRO: UNBOUNDED,
    ...caps,
  };
  const loop = await openLoop({
    validators: VALIDATORS,
    miners: [MINER],
    events,
    env,
    storage: adapter.storage,
    providerEnv: FAKE_KEY_ENV,
  });
  const peer = await openSecondInstance(loop, await adapter.openAnother(), env, FAKE_KEY_ENV);
  await addCredits(loop.service.request, loop.orgId, "100000000", "miner-org");
  return {
    loop,
    peer,
    fake,
    async [Symbol.asyncDispose]() {
      await peer.actors.drain();
      await loop.service.actors.drain();
      await fake.close();
      await Deno.remove(providersFile);
    },
  };
}

/** One call: who signs it and the lease it names. */
interface Call {
  signer: Signer;
  agentPredictionId: string;
}

/** Sends every call at once, alternating the instances; answers each call's status and body. */
async function raceCalls(
  race: Race,
  calls: Call[],
): Promise<{ status: number; body: Record<string, unknown> }[]> {
  const responses = await Promise.all(calls.map((call, i) => {
    const instance = [race.loop.service, race.peer][i % 2]!;
    const init = signedInit(call.signer, "POST", PATH, {
      nowMs: instance.clock.now(),
      body: JSON.stringify({ ...FAKE_CALL, agentPredictionId: call.agentPredictionId }),
      minerHotkey: MINER.hotkey,
    });
    return instance.request(PATH, init);
  }));
  return await Promise.all(responses.map(async (r) => ({ status: r.status, body: await r.json() })));
}

/** `count` leases of `MINER`'s agent taken by `signer`, each named by `perLease` calls. */
async function leasedCalls(race: Race, signer: Signer, counts: { leases: number; perLease: number }) {
  const calls: Call[] = [];
  for (let l = 0; l < counts.leases; l++) {
    const { agentPredictionId, minerHotkey } = await leaseAs(race.loop.service, signer);
    assert.equal(minerHotkey, MINER.hotkey);
    for (let c = 0; c < counts.perLease; c++) calls.push({ signer, agentPredictionId });
  }
  return calls;
}

/**
 * What holds after any race: every refusal is 402 `spend_cap_reached` naming `cap`, only the
 * successes reached the provider, each was charged its hold once, the ledger adds up and no hold
 * is left. Answers the successes' calls.
 */
async function settledRace(race: Race, calls: Call[], cap: string): Promise<Call[]> {
  const answers = await raceCalls(race, calls);
  const ok = calls.filter((_, i) => answers[i]!.status === 200);
  const refused = answers.filter((answer) => answer.status !== 200);
  const caps = refused.map(({ status, body }) => {
    const error = body.error as { code: string; details: { cap: string } };
    return `${status} ${error.code} ${error.details?.cap}`;
  });
  assert.ok(caps.every((c) => c === `402 spend_cap_reached ${cap}`), JSON.stringify(caps));
  assert.equal(race.fake.requests.length, ok.length, "a refused call never reaches the provider");
  const { billing } = race.loop.service.storage;
  const charged = FAKE_HOLD * BigInt(ok.length);
  const account = await billing.getAccount(race.loop.orgId);
  assert.deepEqual([account?.balanceMicro, account?.heldMicro], [100_000_000n - charged, 0n]);
  assert.equal(await ledgerSum(billing, race.loop.orgId), account?.balanceMicro);
  const debits = (await allLedgerEntries(billing, race.loop.orgId)).filter((e) => e.kind === "debit");
  assert.equal(debits.length, ok.length, "one debit per 2xx");
  assert.deepEqual(await billing.listHolds(race.loop.orgId), []);
  const usage = await usageOf(race.loop.service.request, race.loop.orgId);
  assert.ok(usage.every((u) => u.minerHotkey === MINER.hotkey));
  const validators = usage.map((u) => (u.metadata as Record<string, unknown>).validatorHotkey).toSorted();
  assert.deepEqual(validators, ok.map((call) => call.signer.hotkey).toSorted(), "each names its validator");
  const named = usage.map((u) => (u.metadata as Record<string, unknown>).agentPredictionId).toSorted();
  assert.deepEqual(
    named,
    ok.map((call) => call.agentPredictionId).toSorted(),
    "each usage record names its lease",
  );
  return ok;
}

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  return Object.fromEntries(Object.entries(Object.groupBy(items, key)).map(([k, v]) => [k, v!.length]));
}

const K = 23;

adapterTest(
  "200 racing validator completions on two instances: exactly K fit the miner's daily cap, the rest 402 spend_cap_reached",
  { needs: "concurrency" },
  async (adapter) => {
    await using race = await openRace(adapter, {
      FGW_VALIDATOR_DAILY_CAP_MICRO: String(FAKE_HOLD * BigInt(K)),
    }, 2);
    const perValidator = await Promise.all(
      VALIDATORS.map((v) => leasedCalls(race, v, { leases: 1, perLease: 100 })),
    );
    const calls = perValidator[0]!.flatMap((call, i) => [call, perValidator[1]![i]!]);
    const ok = await settledRace(race, calls, "daily");
    assert.equal(ok.length, K);
    const day = utcDay(race.loop.service.clock.now());
    const spent = await race.loop.service.storage.billing.capSpent({
      cap: "daily",
      minerHotkey: MINER.hotkey,
      day,
    });
    assert.equal(spent, FAKE_HOLD * BigInt(K), "the counter is what was charged");
  },
);

adapterTest(
  "5 leases × 4 racing calls of one miner on two instances against a daily cap of 10 calls: exactly 10 succeed, the rest 402 (daily)",
  { needs: "concurrency" },
  async (adapter) => {
    await using race = await openRace(adapter, { FGW_VALIDATOR_DAILY_CAP_MICRO: String(FAKE_HOLD * 10n) }, 5);
    const calls = await leasedCalls(race, VALIDATORS[0]!, { leases: 5, perLease: 4 });
    assert.equal((await settledRace(race, calls, "daily")).length, 10);
  },
);

adapterTest(
  "5 leases × 4 racing calls on two instances against a lease cap of 2 calls: exactly 2 succeed per lease, the rest 402 (lease)",
  { needs: "concurrency" },
  async (adapter) => {
    await using race = await openRace(adapter, { FGW_LEASE_LLM_CAP_MICRO: String(FAKE_HOLD * 2n) }, 5);
    const calls = await leasedCalls(race, VALIDATORS[0]!, { leases: 5, perLease: 4 });
    const ok = await settledRace(race, calls, "lease");
    assert.deepEqual(Object.values(countBy(ok, (call) => call.agentPredictionId)), [2, 2, 2, 2, 2]);
  },
);

adapterTest(
  "two validators × 2 leases × 4 racing calls on two instances against a validator cap of 3 calls: exactly 3 succeed per validator, the rest 402 (validator)",
  { needs: "concurrency" },
  async (adapter) => {
    await using race = await openRace(adapter, {
      FGW_VALIDATOR_MINER_DAILY_CAP_MICRO: String(FAKE_HOLD * 3n),
    }, 4);
    const perValidator = await Promise.all(
      VALIDATORS.map((v) => leasedCalls(race, v, { leases: 2, perLease: 4 })),
    );
    const ok = await settledRace(race, perValidator.flat(), "validator");
    assert.deepEqual(countBy(ok, (call) => call.signer.hotkey), {
      [VALIDATORS[0]!.hotkey]: 3,
      [VALIDATORS[1]!.hotkey]: 3,
    });
  },
);
