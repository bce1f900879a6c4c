import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";
import { addMember, auditOf, credentialOf, invitationOf } from "../support/identity.ts";

const AT = Date.UTC(2026, 0, 1);

adapterTest(
  "two instances removing the last two owners at once: one removal is refused",
  { needs: "concurrency" },
  async (adapter) => {
    const other = await adapter.openAnother();
    for (let round = 0; round < 10; round++) {
      const orgId = `org_${round}`;
      const a = await addMember(adapter.storage, { orgId, memberId: `a_${round}`, role: "owner", nowMs: AT });
      const b = await addMember(adapter.storage, { orgId, memberId: `b_${round}`, role: "owner", nowMs: AT });
      const audit = (memberId: string) => auditOf(orgId, "member.removed", { subject: memberId, atMs: AT });
      const outcomes = await Promise.all([
        adapter.storage.members.removeMember(orgId, a.id, audit(a.id)),
        other.members.removeMember(orgId, b.id, audit(b.id)),
      ]);
      assert.deepEqual(outcomes.toSorted(), ["changed", "last_owner"]);
      const left = await adapter.storage.members.listMembers(orgId);
      assert.equal(left.length, 1);
      assert.equal(left[0]?.role, "owner");
    }
  },
);

adapterTest(
  "a removal and a demotion of the last two owners raced on two instances leave one owner",
  { needs: "concurrency" },
  async (adapter) => {
    const other = await adapter.openAnother();
    for (let round = 0; round < 10; round++) {
      const orgId = `org_${round}`;
      const a = await addMember(adapter.storage, { orgId, memberId: `a_${round}`, role: "owner", nowMs: AT });
      const b = await addMember(adapter.storage, { orgId, memberId: `b_${round}`, role: "owner", nowMs: AT });
      const audit = auditOf(orgId, "member.removed", { subject: a.id, atMs: AT });
      const demotion = auditOf(orgId, "member.role_changed", { subject: b.id, atMs: AT });
      const outcomes = await Promise.all([
        adapter.storage.members.removeMember(orgId, a.id, audit),
        other.members.changeRole(orgId, b.id, { role: "viewer", audit: demotion }),
      ]);
      assert.deepEqual(outcomes.toSorted(), ["changed", "last_owner"]);
      const owners = (await adapter.storage.members.listMembers(orgId)).filter((m) => m.role === "owner");
      assert.equal(owners.length, 1);
    }
  },
);

adapterTest(
  "one invitation accepted by two browsers at once makes one member",
  { needs: "concurrency" },
  async (adapter) => {
    const other = await adapter.openAnother();
    await adapter.storage.orgs.create({ id: "org_a", name: "A", createdAtMs: AT });
    for (let round = 0; round < 10; round++) {
      const invitation = invitationOf(`inv_${round}`, { orgId: "org_a", nowMs: AT });
      await adapter.storage.members.createInvitation(
        invitation,
        auditOf("org_a", "invitation.created", { subject: invitation.id, atMs: AT }),
      );
      const accept = (storage: typeof other, who: string) =>
        storage.members.acceptInvitation({
          invitationId: invitation.id,
          nowMs: AT,
          newMember: { id: `${who}_${round}`, displayName: who },
          credential: credentialOf(`cred_${who}_${round}`, AT),
          audit: (member) => auditOf("org_a", "member.joined", { subject: member.id, atMs: AT }),
        });
      const outcomes = await Promise.all([accept(adapter.storage, "x"), accept(other, "y")]);
      assert.deepEqual(outcomes.map((o) => o.status).toSorted(), ["accepted", "gone"]);
    }
    assert.equal((await adapter.storage.members.listMembers("org_a")).length, 10);
  },
);
