import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";
import { addMember, auditOf, sessionOf } from "../support/identity.ts";

const AT = Date.UTC(2026, 0, 1);
const HOTKEY = "5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi";
const OTHER = "5Fpfx4iDtrrY99VGkQnLXASytC2y9Z3o8KUyTtD4w7o5SZcA";

adapterTest(
  "org store tells a hotkey linked with proof from one the operator registered",
  async ({ storage }) => {
    await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: AT });
    await storage.orgs.create({ id: "org_b", name: "B", createdAtMs: AT });
    const linked = auditOf("org_a", "hotkey.linked", { subject: HOTKEY, atMs: AT });
    const registered = auditOf("org_a", "hotkey.registered", { subject: OTHER, atMs: AT + 1 });
    assert.equal(
      await storage.orgs.registerMiner("org_a", HOTKEY, {
        atMs: AT,
        makeDefault: false,
        proof: true,
        audit: linked,
      }),
      "registered",
    );
    assert.equal(
      await storage.orgs.registerMiner("org_a", OTHER, { atMs: AT, makeDefault: false, audit: registered }),
      "registered",
    );
    assert.deepEqual((await storage.orgs.listMiners("org_a")).map((m) => [m.hotkey, m.linkedWithProof]), [
      [HOTKEY, true],
      [OTHER, false],
    ]);
    // Another org's proof does not take a registered hotkey (409 for the caller).
    assert.equal(
      await storage.orgs.registerMiner("org_b", OTHER, { atMs: AT, makeDefault: false, proof: true }),
      "taken",
    );
    assert.equal((await storage.orgs.minerRegistration(OTHER))?.linkedWithProof, false);
    // A proof upgrades this org's own registration; the operator registering it again keeps the proof.
    const upgrade = auditOf("org_a", "hotkey.linked", { subject: OTHER, atMs: AT + 2 });
    assert.equal(
      await storage.orgs.registerMiner("org_a", OTHER, {
        atMs: AT + 9,
        makeDefault: false,
        proof: true,
        audit: upgrade,
      }),
      "already",
    );
    const again = auditOf("org_a", "hotkey.registered", { subject: OTHER, atMs: AT + 3 });
    assert.equal(
      await storage.orgs.registerMiner("org_a", OTHER, { atMs: AT, makeDefault: false, audit: again }),
      "already",
    );
    assert.deepEqual(await storage.orgs.minerRegistration(OTHER), {
      hotkey: OTHER,
      orgId: "org_a",
      registeredAtMs: AT,
      linkedWithProof: true,
      boundMemberId: null,
    });
    const log = await storage.audit.list("org_a", { limit: 10 });
    assert.deepEqual(log.map((entry) => entry.id), [upgrade.id, registered.id, linked.id]);
  },
);

adapterTest(
  "org store binds a proof-linked hotkey to a member of its org, ending the hotkey's sessions",
  async ({ storage }) => {
    const owner = await addMember(storage, { orgId: "org_a", memberId: "mbr_o", role: "owner", nowMs: AT });
    const viewer = await addMember(storage, { orgId: "org_a", memberId: "mbr_v", role: "viewer", nowMs: AT });
    await addMember(storage, { orgId: "org_b", memberId: "mbr_b", role: "owner", nowMs: AT });
    await storage.orgs.registerMiner("org_a", HOTKEY, { atMs: AT, makeDefault: false, proof: true });
    await storage.orgs.registerMiner("org_a", OTHER, { atMs: AT, makeDefault: false });
    const audit = () => auditOf("org_a", "hotkey.bound", { subject: HOTKEY, atMs: AT });
    const bind = (hotkey: string, memberId: string | null, orgId = "org_a") =>
      storage.orgs.bindMiner(orgId, hotkey, { memberId, audit: audit() });

    assert.equal(await bind(OTHER, viewer.id), "not_linked_with_proof");
    assert.equal(await bind(HOTKEY, "mbr_b"), "no_member");
    assert.equal(await bind(HOTKEY, "mbr_b", "org_b"), "not_found");
    assert.equal(await bind(HOTKEY, viewer.id), "bound");
    assert.equal(await bind(HOTKEY, viewer.id), "unchanged");
    assert.equal((await storage.orgs.minerRegistration(HOTKEY))?.boundMemberId, viewer.id);

    await storage.sessions.create(
      sessionOf("s_h", { member: viewer, nowMs: AT, via: { kind: "hotkey", hotkey: HOTKEY } }),
    );
    await storage.sessions.create(sessionOf("s_p", { member: viewer, nowMs: AT }));
    assert.equal(await bind(HOTKEY, owner.id), "bound");
    assert.equal(await storage.sessions.find("s_h"), null);
    assert.notEqual(await storage.sessions.find("s_p"), null);
    assert.equal(await bind(HOTKEY, null), "bound");
    assert.equal((await storage.orgs.minerRegistration(HOTKEY))?.boundMemberId, null);
  },
);

adapterTest(
  "org store: unlinking a hotkey ends the sessions it signed in and writes the audit entry",
  async ({ storage }) => {
    const owner = await addMember(storage, { orgId: "org_a", memberId: "mbr_o", role: "owner", nowMs: AT });
    await storage.orgs.create({ id: "org_b", name: "B", createdAtMs: AT });
    await storage.orgs.registerMiner("org_a", HOTKEY, { atMs: AT, makeDefault: true, proof: true });
    await storage.orgs.bindMiner("org_a", HOTKEY, {
      memberId: owner.id,
      audit: auditOf("org_a", "hotkey.bound", { subject: HOTKEY, atMs: AT }),
    });
    await storage.sessions.create(
      sessionOf("s_h", { member: owner, nowMs: AT, via: { kind: "hotkey", hotkey: HOTKEY } }),
    );
    await storage.sessions.create(sessionOf("s_p", { member: owner, nowMs: AT }));
    const unlinked = auditOf("org_a", "hotkey.unlinked", { subject: HOTKEY, atMs: AT + 5 });
    assert.equal(await storage.orgs.unregisterMiner("org_b", HOTKEY, { audit: unlinked }), false);
    assert.equal(await storage.orgs.unregisterMiner("org_a", HOTKEY, { audit: unlinked }), true);
    assert.equal(await storage.sessions.find("s_h"), null);
    assert.notEqual(await storage.sessions.find("s_p"), null);
    assert.equal((await storage.orgs.get("org_a"))?.defaultMinerHotkey, null);
    assert.deepEqual((await storage.audit.list("org_a", { limit: 1 }))[0], unlinked);
  },
);
