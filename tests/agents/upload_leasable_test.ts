/**
 * An agent upload syncs its miner's assignments once the version has committed, so a validator
 * leases the new version at once on any instance sharing the storage, without waiting for the
 * periodic assignment sync (docs/assignments.md).
 */
import assert from "node:assert/strict";
import { LeaseReplySchema } from "../../routes/validators/validators_api.ts";
import { addCredits, issueKey, overriding } from "../support/access.ts";
import { adapterTest } from "../support/adapters.ts";
import { agentCode, SUBMIT_AGENT, uploadInit } from "../support/agents.ts";
import type { TestService } from "../support/test_service.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import type { AssignmentStore } from "../../storage/assignment_store.ts";
import {
  LEASE,
  type Loop,
  loopNeuron,
  openLoop,
  openSecondInstance,
  registerMiner,
  signedInit,
  testSigner,
} from "../support/validator_loop.ts";

const VALIDATOR = testSigner("validator-0");
const MINER = testSigner("miner-new");
const ENV = { FGW_AGENT_COOLDOWN_MS: "0" };

async function upload(service: TestService, apiKey: string, variant: string): Promise<string> {
  const init = uploadInit({ code: agentCode(variant) }, { authorization: `Bearer ${apiKey}` });
  const response = await service.request(SUBMIT_AGENT, init);
  const body = await response.json();
  assert.equal(response.status, 201, JSON.stringify(body));
  return body.versionId;
}

async function leasedVersion(service: TestService): Promise<string | null> {
  const response = await service.request(
    LEASE,
    signedInit(VALIDATOR, "GET", LEASE, { nowMs: service.clock.now() }),
  );
  assert.equal(response.status, 200);
  const reply = LeaseReplySchema.parse(await response.json());
  return reply.assignment?.agent.versionId ?? null;
}

/** MINER joins `loop`: in the metagraph (uid 1), registered to its org, the org credited; a key to upload with. */
async function minerJoins(loop: Loop): Promise<string> {
  const { service, source } = loop;
  const neurons = [...source.current.neurons, loopNeuron(1, MINER.hotkey)];
  source.current = { ...source.current, block: source.current.block + 1, neurons };
  service.clock.advance(1_000);
  await registerMiner(service.request, loop.orgId, MINER.hotkey);
  await addCredits(service.request, loop.orgId, "1000000", "miner-credit");
  await loop.sync();
  const terms = { scopes: ["predictions:write"], pinnedMinerHotkey: MINER.hotkey };
  return (await issueKey(service.request, loop.orgId, terms)).apiKey;
}

adapterTest(
  "an agent uploaded on one instance is leased at once on another, and so is its next version",
  async (adapter) => {
    const loop = await openLoop({
      validators: [VALIDATOR],
      miners: 0,
      events: 1,
      env: ENV,
      storage: adapter.storage,
    });
    const first = loop.service;
    const apiKey = await minerJoins(loop);
    const second = await openSecondInstance(loop, await adapter.openAnother(), ENV);
    try {
      assert.equal(await leasedVersion(second), null, "no agent yet: nothing to lease");
      const v1 = await upload(first, apiKey, "v1");
      assert.equal(await leasedVersion(second), v1, "the first agent, before any periodic sync");
      first.clock.advance(60_000);
      const v2 = await upload(first, apiKey, "v2");
      assert.equal(await leasedVersion(second), v2, "the next version, before any periodic sync");
    } finally {
      await second.close();
      await first.close();
    }
  },
);

Deno.test("an upload whose assignment sync fails is still stored and answered 201; the periodic sync makes it leasable", async () => {
  const storage = await openKvStorage(":memory:");
  let failing = false;
  const ensure: AssignmentStore["ensure"] = (targets, options) =>
    failing ? Promise.reject(new Error("storage hiccup")) : storage.assignments.ensure(targets, options);
  const flaky = { ...storage, assignments: overriding(storage.assignments, { ensure }) };
  const loop = await openLoop({ validators: [VALIDATOR], miners: 0, events: 1, env: ENV, storage: flaky });
  await using service = loop.service;
  const apiKey = await minerJoins(loop);
  failing = true;
  const v1 = await upload(service, apiKey, "v1");
  assert.equal((await service.storage.agents.minerState(MINER.hotkey))?.currentVersionId, v1);
  assert.equal(await leasedVersion(service), null, "not synced yet");
  failing = false;
  await loop.sync();
  assert.equal(await leasedVersion(service), v1);
});
