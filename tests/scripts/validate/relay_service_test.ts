/**
 * A run's relay against the service itself (served on a local port), for the escape suite's relay
 * checks: the service's refusals pass through the relay unchanged and charge nothing — a call
 * after the run's lease was submitted (409 `lease_not_held`), a body the service refuses (400,
 * unknown provider) — while a call for the lease held is answered and billed to the miner's org.
 */
import assert from "node:assert/strict";
import { startRelay } from "../../../scripts/validate/relay/mod.ts";
import { usageOf } from "../../gateway/gateway_service.ts";
import { addCredits } from "../../support/access.ts";
import { adapterTest } from "../../support/adapters.ts";
import { allLedgerEntries } from "../../support/ledger.ts";
import { agentBody, errorCode, postCompletion } from "../../support/relay_client.ts";
import { serveService } from "../../support/served_service.ts";
import { leaseAs, type Loop, openLoop, submitAs, testSigner } from "../../support/validator_loop.ts";

const VALIDATOR = testSigner("relay-service-validator");
const MINER = testSigner("relay-service-miner");
const CREDIT = 1_000_000n;

/** What the miner's org has been charged: its balance, debits and usage records. */
async function chargesOf(loop: Loop) {
  const { billing } = loop.service.storage;
  return {
    balanceMicro: (await billing.getAccount(loop.orgId))?.balanceMicro,
    debits: (await allLedgerEntries(billing, loop.orgId)).filter((e) => e.kind === "debit").length,
    usage: (await usageOf(loop.service.request, loop.orgId)).length,
  };
}

adapterTest(
  "through a run's relay, the service's refusals (unknown provider 400, lease submitted 409 lease_not_held) pass through and charge nothing",
  async (adapter) => {
    const loop = await openLoop({
      validators: [VALIDATOR],
      miners: [MINER],
      events: 1,
      storage: adapter.storage,
    });
    const { service } = loop;
    try {
      await addCredits(service.request, loop.orgId, String(CREDIT), "miner-org");
      await using served = serveService(service);
      const work = await leaseAs(service, VALIDATOR);
      const relay = await startRelay({
        base: served.base,
        signer: VALIDATOR,
        fetch: (url, init) => fetch(url, init),
        nowMs: service.clock.now,
        lease: { agentPredictionId: work.agentPredictionId, minerHotkey: work.minerHotkey },
      });
      try {
        // A body the service refuses: its 400 comes back as it answered, nothing is charged.
        const unknown = await postCompletion(
          relay.socketPath,
          agentBody("hello").replace('"echo"', '"nope"'),
        );
        assert.equal(unknown.status, 400, unknown.text);
        const error = unknown.json.error as {
          code: string;
          message: string;
          details: { fields: { field: string }[] };
        };
        assert.deepEqual([error.code, error.message, error.details.fields[0]?.field], [
          "invalid_request",
          "Unknown provider",
          "provider",
        ]);
        assert.deepEqual(await chargesOf(loop), { balanceMicro: CREDIT, debits: 0, usage: 0 });

        // The lease held: the call is answered and billed.
        const answered = await postCompletion(relay.socketPath, agentBody("Will it rain?"));
        assert.equal(answered.status, 200, answered.text);
        const cost = BigInt(String(answered.json.costMicro));
        const charged = { balanceMicro: CREDIT - cost, debits: 1, usage: 1 };
        assert.deepEqual(await chargesOf(loop), charged);

        // The lease submitted: the service's 409 lease_not_held comes back, nothing more is charged.
        assert.equal(await submitAs(service, VALIDATOR, work), 200);
        const late = await postCompletion(relay.socketPath, agentBody("Will it rain?"));
        assert.deepEqual([late.status, errorCode(late)], [409, "lease_not_held"], late.text);
        assert.deepEqual(await chargesOf(loop), charged);
        // The relay itself refused none: both refusals were the service's.
        assert.deepEqual(relay.stats(), { calls: 3, charged: 1, costMicro: cost, refused: 0 });
      } finally {
        await relay.close();
      }
    } finally {
      await service.actors.drain();
    }
  },
);
