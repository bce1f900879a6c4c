import assert from "node:assert/strict";
import { ManualClock, ServiceError } from "../../actors/kernel/mod.ts";
import { type AskOrg, orgActorKind, orgAsker } from "../../actors/billing/mod.ts";
import { type AskMiner, minerActorKind, minerAsker } from "../../actors/agents/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import { adapterTest } from "../support/adapters.ts";
import { HOTKEY_A } from "../support/access.ts";
import { agentCode } from "../support/agents.ts";

const DAY = 86_400_000;

function actors(storage: Storage, clock: ManualClock): { askOrg: AskOrg; askMiner: AskMiner } {
  const system = new ActorSystem({ clock: clock.now });
  const { orgs, billing } = storage;
  const orgKind = system.register(orgActorKind({ orgs, billing, clock: clock.now, holdTtlMs: 60_000 }));
  const askOrg = orgAsker(system, orgKind);
  const deps = { agents: storage.agents, askOrg, clock: clock.now, maxBytes: 4096, cooldownMs: DAY };
  return { askOrg, askMiner: minerAsker(system, system.register(minerActorKind(deps))) };
}

async function refusal(call: Promise<unknown>): Promise<ServiceError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof ServiceError, String(error));
    return error;
  }
  assert.fail("the call was not refused");
}

adapterTest(
  "the MinerActor needs an available balance: credits all held give 402 until released",
  async ({ storage }) => {
    const clock = new ManualClock();
    const { askOrg, askMiner } = actors(storage, clock);
    await askOrg("org_m", { type: "create", name: "Miners" });
    await askOrg("org_m", { type: "registerMiner", hotkey: HOTKEY_A });
    await askOrg("org_m", { type: "credit", amountMicro: 10n, reference: "top-up" });
    const { holdId } = await askOrg("org_m", { type: "reserve", amountMicro: 10n });
    const upload = { type: "upload", orgId: "org_m", code: agentCode() } as const;
    const held = await refusal(askMiner(HOTKEY_A, upload));
    assert.equal(held.code, "insufficient_credits");
    assert.deepEqual(held.details, { orgId: "org_m", availableMicro: "0" });
    await askOrg("org_m", { type: "release", holdId });
    const reply = await askMiner(HOTKEY_A, upload);
    assert.equal(reply.created, true);
    assert.deepEqual(await askMiner(HOTKEY_A, { type: "versions" }), {
      versions: [reply.version],
      currentVersionId: reply.version.versionId,
      lastUploadAtMs: clock.now(),
      nextUploadAtMs: clock.now() + DAY,
    });
    // Uploading costs nothing: the balance is unchanged.
    assert.equal((await askOrg("org_m", { type: "balance" })).availableMicro, 10n);
  },
);

adapterTest(
  "the MinerActor answers a repeat with its version even once the balance is gone",
  async ({ storage }) => {
    const clock = new ManualClock();
    const { askOrg, askMiner } = actors(storage, clock);
    await askOrg("org_m", { type: "create", name: "Miners" });
    await askOrg("org_m", { type: "credit", amountMicro: 5n, reference: "top-up" });
    const first = await askMiner(HOTKEY_A, { type: "upload", orgId: "org_m", code: agentCode(), name: "v1" });
    await askOrg("org_m", { type: "reserve", amountMicro: 5n });
    const repeat = await askMiner(HOTKEY_A, { type: "upload", orgId: "org_m", code: agentCode() });
    assert.deepEqual(repeat, { version: first.version, created: false, current: true });
    const fresh = await refusal(askMiner(HOTKEY_A, { type: "upload", orgId: "org_m", code: agentCode(2) }));
    assert.equal(fresh.code, "insufficient_credits");
  },
);
