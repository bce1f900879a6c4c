import assert from "node:assert/strict";
import { ManualClock, ServiceError } from "../../actors/kernel/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import { type AskMembership, membershipActorKind, membershipAsker } from "../../actors/identity/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import { adapterTest } from "../support/adapters.ts";
import { addMember, auditOf, credentialOf } from "../support/identity.ts";

const START = Date.UTC(2026, 10, 20, 12);

/** The MembershipActors of one service instance (its own actor system and storage handle). */
function instance(storage: Storage, clock: ManualClock): AskMembership {
  const system = new ActorSystem({ clock: clock.now });
  return membershipAsker(system, system.register(membershipActorKind({ ...storage, clock: clock.now })));
}

async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "removed";
  } catch (error) {
    if (error instanceof ServiceError) return `${error.code}:${error.details?.["rule"]}`;
    throw error;
  }
}

adapterTest(
  "two instances removing an organisation's last two owners at once: one removal is refused",
  { needs: "concurrency" },
  async (adapter) => {
    const clock = new ManualClock(START);
    const first = instance(adapter.storage, clock);
    const second = instance(await adapter.openAnother(), clock);
    for (let round = 0; round < 10; round++) {
      const orgId = `org_${round}`;
      const a = await addMember(adapter.storage, {
        orgId,
        memberId: `mbr_a${round}`,
        role: "owner",
        nowMs: START,
      });
      const b = await addMember(adapter.storage, {
        orgId,
        memberId: `mbr_b${round}`,
        role: "owner",
        nowMs: START,
      });
      const by = { kind: "operator" as const };
      const outcomes = await Promise.all([
        outcome(first(orgId, { type: "removeMember", memberId: a.id, by })),
        outcome(second(orgId, { type: "removeMember", memberId: b.id, by })),
      ]);
      assert.deepEqual(outcomes.toSorted(), ["conflict:last_owner", "removed"]);
      const owners = (await adapter.storage.members.listMembers(orgId)).filter((m) => m.role === "owner");
      assert.equal(owners.length, 1);
      const removals = (await adapter.storage.audit.list(orgId, { limit: 10 }))
        .filter((entry) => entry.action === "member.removed");
      assert.equal(removals.length, 1, "the refused removal wrote no audit entry");
    }
  },
);

adapterTest(
  "two instances removing a member's two passkeys at once: one removal is refused, one passkey stays",
  { needs: "concurrency" },
  async (adapter) => {
    const clock = new ManualClock(START);
    const first = instance(adapter.storage, clock);
    const second = instance(await adapter.openAnother(), clock);
    for (let round = 0; round < 6; round++) {
      const orgId = `org_${round}`;
      const member = await addMember(adapter.storage, {
        orgId,
        memberId: `mbr_${round}`,
        role: "viewer",
        nowMs: START,
      });
      const other = `cred_other_${round}`;
      await adapter.storage.members.addCredential(
        { ...credentialOf(other, START), memberId: member.id, lastUsedAtMs: null },
        auditOf(orgId, "passkey.added", { subject: other, atMs: START }),
      );
      const outcomes = await Promise.all([
        outcome(
          first(orgId, { type: "removePasskey", memberId: member.id, credentialId: `cred_${member.id}` }),
        ),
        outcome(second(orgId, { type: "removePasskey", memberId: member.id, credentialId: other })),
      ]);
      assert.deepEqual(outcomes.toSorted(), ["conflict:last_passkey", "removed"]);
      assert.equal((await adapter.storage.members.listCredentials(member.id)).length, 1);
      const removals = (await adapter.storage.audit.list(orgId, { limit: 10 }))
        .filter((entry) => entry.action === "passkey.removed");
      assert.equal(removals.length, 1, "the refused removal wrote no audit entry");
    }
  },
);
