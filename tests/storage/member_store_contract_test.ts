import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";
import {
  addMember,
  auditOf,
  credentialOf,
  invitationOf,
  sessionOf,
  storedCredential,
} from "../support/identity.ts";
import type { AcceptInvitation } from "../../storage/member_store.ts";

const AT = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

function acceptance(invitationId: string, over: Partial<AcceptInvitation> = {}): AcceptInvitation {
  return {
    invitationId,
    nowMs: AT + 1_000,
    newMember: { id: "mbr_new", displayName: "Ada" },
    credential: credentialOf("cred_new", AT + 1_000),
    audit: (member) => auditOf(member.orgId, "member.joined", { subject: member.id, atMs: AT + 1_000 }),
    ...over,
  };
}

adapterTest(
  "member store: a join invitation is used up once, making the member and storing its passkey",
  async ({ storage }) => {
    await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: AT });
    const invitation = invitationOf("inv_1", { orgId: "org_a", role: "viewer", nowMs: AT });
    assert.equal(
      await storage.members.createInvitation(
        invitation,
        auditOf("org_a", "invitation.created", { subject: "inv_1", atMs: AT }),
      ),
      true,
    );
    assert.deepEqual(await storage.members.invitation("inv_1"), invitation);
    assert.deepEqual(await storage.members.listInvitations("org_a", { nowMs: AT }), [invitation]);

    const outcome = await storage.members.acceptInvitation(acceptance("inv_1"));
    const member = {
      id: "mbr_new",
      orgId: "org_a",
      displayName: "Ada",
      role: "viewer",
      createdAtMs: AT + 1_000,
    };
    assert.deepEqual(outcome, { status: "accepted", member, invitation });
    assert.deepEqual(await storage.members.member("mbr_new"), member);
    assert.deepEqual(await storage.members.listMembers("org_a"), [member]);
    assert.deepEqual(await storage.members.listCredentials("mbr_new"), [
      storedCredential(credentialOf("cred_new", AT + 1_000), "mbr_new"),
    ]);
    assert.equal(await storage.members.invitation("inv_1"), null);
    assert.deepEqual(await storage.members.listInvitations("org_a", { nowMs: AT }), []);

    const again = await storage.members.acceptInvitation(
      acceptance("inv_1", {
        newMember: { id: "mbr_2", displayName: "B" },
        credential: credentialOf("c2", AT),
      }),
    );
    assert.deepEqual(again, { status: "gone" });
    assert.equal(await storage.members.member("mbr_2"), null);
    const actions = (await storage.audit.list("org_a", { limit: 10 })).map((entry) => entry.action);
    assert.deepEqual(actions.toSorted(), ["invitation.created", "member.joined"]);
  },
);

adapterTest(
  "member store refuses an expired invitation and keeps an unused one when the passkey is taken",
  async ({ storage }) => {
    await addMember(storage, {
      orgId: "org_a",
      memberId: "mbr_owner",
      role: "owner",
      nowMs: AT,
      credentialId: "cred_taken",
    });
    const invitation = invitationOf("inv_2", { orgId: "org_a", nowMs: AT, ttlMs: HOUR });
    await storage.members.createInvitation(
      invitation,
      auditOf("org_a", "invitation.created", { subject: "inv_2", atMs: AT }),
    );

    const taken = await storage.members.acceptInvitation(
      acceptance("inv_2", { credential: credentialOf("cred_taken", AT) }),
    );
    assert.deepEqual(taken, { status: "credential_taken" });
    assert.deepEqual(await storage.members.invitation("inv_2"), invitation);
    assert.equal(await storage.members.member("mbr_new"), null);

    const late = await storage.members.acceptInvitation(acceptance("inv_2", { nowMs: AT + HOUR }));
    assert.deepEqual(late, { status: "gone" });
    assert.deepEqual(await storage.members.listInvitations("org_a", { nowMs: AT + HOUR }), []);
    assert.equal(await storage.members.purgeExpiredInvitations(AT + HOUR - 1), 0);
    assert.equal(await storage.members.purgeExpiredInvitations(AT + HOUR), 1);
    assert.equal(await storage.members.invitation("inv_2"), null);
    assert.equal(await storage.members.purgeExpiredInvitations(AT + HOUR), 0);
  },
);

adapterTest(
  "member store: a re-enrolment invitation gives its member a new passkey and keeps its role",
  async ({ storage }) => {
    const owner = await addMember(storage, {
      orgId: "org_a",
      memberId: "mbr_owner",
      role: "owner",
      nowMs: AT,
    });
    await storage.orgs.create({ id: "org_b", name: "B", createdAtMs: AT });
    const audit = () => auditOf("org_a", "invitation.created", { subject: "inv_r", atMs: AT });
    const elsewhere = invitationOf("inv_x", { orgId: "org_b", memberId: owner.id, nowMs: AT });
    assert.equal(await storage.members.createInvitation(elsewhere, audit()), false);
    assert.equal(await storage.members.invitation("inv_x"), null);
    const missing = invitationOf("inv_y", { orgId: "org_a", memberId: "mbr_nobody", nowMs: AT });
    assert.equal(await storage.members.createInvitation(missing, audit()), false);

    const reenrol = invitationOf("inv_r", { orgId: "org_a", role: "owner", memberId: owner.id, nowMs: AT });
    assert.equal(await storage.members.createInvitation(reenrol, audit()), true);
    const outcome = await storage.members.acceptInvitation(acceptance("inv_r"));
    assert.deepEqual(outcome, { status: "accepted", member: owner, invitation: reenrol });
    assert.equal(await storage.members.member("mbr_new"), null);
    assert.deepEqual((await storage.members.listCredentials(owner.id)).map((c) => c.credentialId), [
      "cred_mbr_owner",
      "cred_new",
    ]);
    assert.deepEqual(await storage.members.listMembers("org_a"), [owner]);
  },
);

adapterTest("member store keeps the last owner: no demotion, no removal", async ({ storage }) => {
  const owner = await addMember(storage, { orgId: "org_a", memberId: "mbr_1", role: "owner", nowMs: AT });
  const viewer = await addMember(storage, {
    orgId: "org_a",
    memberId: "mbr_2",
    role: "viewer",
    nowMs: AT + 1,
  });
  const audit = () => auditOf("org_a", "member.role_changed", { subject: "x", atMs: AT });
  assert.equal(
    await storage.members.changeRole("org_a", owner.id, { role: "viewer", audit: audit() }),
    "last_owner",
  );
  assert.equal(await storage.members.removeMember("org_a", owner.id, audit()), "last_owner");
  assert.equal(
    await storage.members.changeRole("org_a", owner.id, { role: "owner", audit: audit() }),
    "unchanged",
  );
  assert.equal(
    await storage.members.changeRole("org_b", viewer.id, { role: "owner", audit: audit() }),
    "not_found",
  );
  assert.equal(
    await storage.members.changeRole("org_a", "mbr_none", { role: "owner", audit: audit() }),
    "not_found",
  );

  assert.equal(
    await storage.members.changeRole("org_a", viewer.id, { role: "owner", audit: audit() }),
    "changed",
  );
  assert.equal(
    await storage.members.changeRole("org_a", owner.id, { role: "viewer", audit: audit() }),
    "changed",
  );
  assert.deepEqual((await storage.members.listMembers("org_a")).map((m) => [m.id, m.role]), [
    ["mbr_1", "viewer"],
    ["mbr_2", "owner"],
  ]);
  assert.equal(await storage.members.removeMember("org_a", viewer.id, audit()), "last_owner");
  assert.equal(await storage.members.removeMember("org_a", owner.id, audit()), "changed");
  assert.equal(await storage.members.removeMember("org_a", owner.id, audit()), "not_found");
  assert.deepEqual((await storage.members.listMembers("org_a")).map((m) => m.id), ["mbr_2"]);
});

adapterTest(
  "member store: removing a member removes its passkeys, sessions, re-enrolment and hotkey binding",
  async ({ storage }) => {
    await addMember(storage, { orgId: "org_a", memberId: "mbr_owner", role: "owner", nowMs: AT });
    const viewer = await addMember(storage, { orgId: "org_a", memberId: "mbr_v", role: "viewer", nowMs: AT });
    const hotkey = "5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi";
    await storage.orgs.registerMiner("org_a", hotkey, { atMs: AT, makeDefault: false, proof: true });
    const bindAudit = auditOf("org_a", "hotkey.bound", { subject: hotkey, atMs: AT });
    assert.equal(
      await storage.orgs.bindMiner("org_a", hotkey, { memberId: viewer.id, audit: bindAudit }),
      "bound",
    );
    await storage.sessions.create(sessionOf("s_passkey", { member: viewer, nowMs: AT }));
    await storage.sessions.create(
      sessionOf("s_hotkey", { member: viewer, nowMs: AT, via: { kind: "hotkey", hotkey } }),
    );
    const reenrol = invitationOf("inv_v", { orgId: "org_a", role: "viewer", memberId: viewer.id, nowMs: AT });
    await storage.members.createInvitation(
      reenrol,
      auditOf("org_a", "invitation.created", { subject: "inv_v", atMs: AT }),
    );

    const removal = auditOf("org_a", "member.removed", { subject: viewer.id, atMs: AT + 5 });
    assert.equal(await storage.members.removeMember("org_a", viewer.id, removal), "changed");
    assert.equal(await storage.members.member(viewer.id), null);
    assert.deepEqual(await storage.members.listCredentials(viewer.id), []);
    assert.equal(await storage.members.credential("cred_mbr_v"), null);
    assert.equal(await storage.sessions.find("s_passkey"), null);
    assert.equal(await storage.sessions.find("s_hotkey"), null);
    assert.equal(await storage.members.invitation("inv_v"), null);
    assert.equal((await storage.orgs.minerRegistration(hotkey))?.boundMemberId, null);
    const [latest] = await storage.audit.list("org_a", { limit: 1 });
    assert.deepEqual(latest, removal);
  },
);

adapterTest("member store adds, lists, uses and removes a member's passkeys", async ({ storage }) => {
  const member = await addMember(storage, { orgId: "org_a", memberId: "mbr_1", role: "owner", nowMs: AT });
  const audit = () => auditOf("org_a", "passkey.added", { subject: "cred_2", atMs: AT });
  const second = { ...credentialOf("cred_2", AT + 10), memberId: member.id, lastUsedAtMs: null };
  assert.equal(await storage.members.addCredential(second, audit()), "added");
  assert.equal(await storage.members.addCredential(second, audit()), "taken");
  assert.equal(
    await storage.members.addCredential({ ...second, credentialId: "c3", memberId: "mbr_x" }, audit()),
    "no_member",
  );
  assert.deepEqual(await storage.members.credential("cred_2"), second);

  const use = { expectedSignCount: 0, signCount: 7, atMs: AT + 99 };
  assert.equal(await storage.members.recordCredentialUse("cred_2", use), true);
  assert.equal(await storage.members.recordCredentialUse("cred_2", use), false);
  assert.deepEqual(await storage.members.credential("cred_2"), {
    ...second,
    signCount: 7,
    lastUsedAtMs: AT + 99,
  });
  assert.equal(await storage.members.recordCredentialUse("cred_none", use), false);

  assert.equal(await storage.members.removeCredential("mbr_other", "cred_2", audit()), "not_found");
  assert.equal(await storage.members.removeCredential(member.id, "cred_2", audit()), "removed");
  assert.equal(await storage.members.removeCredential(member.id, "cred_2", audit()), "not_found");
  assert.deepEqual((await storage.members.listCredentials(member.id)).map((c) => c.credentialId), [
    "cred_mbr_1",
  ]);
});

adapterTest("member store never removes a member's last passkey", async ({ storage }) => {
  const member = await addMember(storage, { orgId: "org_a", memberId: "mbr_1", role: "owner", nowMs: AT });
  const removal = auditOf("org_a", "passkey.removed", { subject: "cred_mbr_1", atMs: AT + 1 });
  const before = await storage.audit.list("org_a", { limit: 10 });
  assert.equal(await storage.members.removeCredential(member.id, "cred_mbr_1", removal), "last");
  assert.equal(await storage.members.removeCredential(member.id, "cred_none", removal), "not_found");
  assert.ok(await storage.members.credential("cred_mbr_1"));
  assert.deepEqual(await storage.audit.list("org_a", { limit: 10 }), before, "a refusal writes no entry");

  const second = { ...credentialOf("cred_2", AT + 2), memberId: member.id, lastUsedAtMs: null };
  const added = auditOf("org_a", "passkey.added", { subject: "cred_2", atMs: AT + 2 });
  assert.equal(await storage.members.addCredential(second, added), "added");
  assert.equal(await storage.members.removeCredential(member.id, "cred_mbr_1", removal), "removed");
  assert.equal(await storage.members.removeCredential(member.id, "cred_2", removal), "last");
  assert.deepEqual((await storage.members.listCredentials(member.id)).map((c) => c.credentialId), ["cred_2"]);
});

adapterTest(
  "member store: two removals of a member's two passkeys at once, from two instances, leave one",
  { needs: "concurrency" },
  async (adapter) => {
    const another = await adapter.openAnother();
    for (let round = 0; round < 6; round++) {
      const orgId = `org_${round}`;
      const member = await addMember(adapter.storage, {
        orgId,
        memberId: `mbr_${round}`,
        role: "owner",
        nowMs: AT,
      });
      const second = { ...credentialOf(`cred_2_${round}`, AT + 1), memberId: member.id, lastUsedAtMs: null };
      await adapter.storage.members.addCredential(
        second,
        auditOf(orgId, "passkey.added", { subject: second.credentialId, atMs: AT + 1 }),
      );
      const removal = (credentialId: string) =>
        auditOf(orgId, "passkey.removed", { subject: credentialId, atMs: AT + 2 });
      // Even rounds race on one handle, odd rounds on two (as two service instances would).
      const other = round % 2 === 0 ? adapter.storage : another;
      const outcomes = await Promise.all([
        adapter.storage.members.removeCredential(
          member.id,
          `cred_${member.id}`,
          removal(`cred_${member.id}`),
        ),
        other.members.removeCredential(member.id, second.credentialId, removal(second.credentialId)),
      ]);
      assert.deepEqual(outcomes.toSorted(), ["last", "removed"], `round ${round}`);
      assert.equal((await adapter.storage.members.listCredentials(member.id)).length, 1);
      const removals = (await adapter.storage.audit.list(orgId, { limit: 10 }))
        .filter((entry) => entry.action === "passkey.removed");
      assert.equal(removals.length, 1, "the refused removal wrote no audit entry");
    }
  },
);

adapterTest("member store revokes an invitation of its own org only", async ({ storage }) => {
  await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: AT });
  const invitation = invitationOf("inv_1", { orgId: "org_a", nowMs: AT });
  const audit = () => auditOf("org_a", "invitation.revoked", { subject: "inv_1", atMs: AT });
  await storage.members.createInvitation(invitation, audit());
  assert.equal(await storage.members.revokeInvitation("org_b", "inv_1", audit()), false);
  assert.equal(await storage.members.revokeInvitation("org_a", "inv_1", audit()), true);
  assert.equal(await storage.members.revokeInvitation("org_a", "inv_1", audit()), false);
  assert.deepEqual(await storage.members.acceptInvitation(acceptance("inv_1")), { status: "gone" });
});
