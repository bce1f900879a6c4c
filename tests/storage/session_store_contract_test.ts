import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";
import { addMember, sessionOf } from "../support/identity.ts";
import type { ChallengeRecord } from "../../storage/session_store.ts";

const AT = Date.UTC(2026, 0, 1);
const HOTKEY = "5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi";

adapterTest(
  "session store finds a session with its member, touches it once per seen time, and ends it",
  async ({ storage }) => {
    const member = await addMember(storage, { orgId: "org_a", memberId: "mbr_1", role: "owner", nowMs: AT });
    const session = sessionOf("s_1", { member, nowMs: AT });
    await storage.sessions.create(session);
    assert.deepEqual(await storage.sessions.find("s_1"), { session, member, hotkey: null });
    assert.equal(await storage.sessions.find("s_none"), null);

    const touch = { seenAtMs: AT, lastSeenAtMs: AT + 60_000, expiresAtMs: AT + 9_000_000 };
    assert.equal(await storage.sessions.touch("s_1", touch), true);
    assert.equal(await storage.sessions.touch("s_1", touch), false);
    assert.equal(await storage.sessions.touch("s_none", touch), false);
    const touched = { ...session, lastSeenAtMs: AT + 60_000, expiresAtMs: AT + 9_000_000 };
    assert.deepEqual((await storage.sessions.find("s_1"))?.session, touched);

    assert.equal(await storage.sessions.end("s_1"), true);
    assert.equal(await storage.sessions.end("s_1"), false);
    assert.equal(await storage.sessions.find("s_1"), null);
  },
);

adapterTest(
  "session store reads a hotkey session with the hotkey's registration, and a removed member as null",
  async ({ storage }) => {
    const member = await addMember(storage, { orgId: "org_a", memberId: "mbr_1", role: "owner", nowMs: AT });
    const viewer = await addMember(storage, { orgId: "org_a", memberId: "mbr_2", role: "viewer", nowMs: AT });
    await storage.orgs.registerMiner("org_a", HOTKEY, { atMs: AT, makeDefault: false, proof: true });
    const session = sessionOf("s_h", { member, nowMs: AT, via: { kind: "hotkey", hotkey: HOTKEY } });
    await storage.sessions.create(session);
    assert.deepEqual(await storage.sessions.find("s_h"), {
      session,
      member,
      hotkey: {
        hotkey: HOTKEY,
        orgId: "org_a",
        registeredAtMs: AT,
        linkedWithProof: true,
        boundMemberId: null,
      },
    });
    // A session left behind by a removal (as a removal racing a sign-in can leave) reads its member as null.
    await storage.sessions.create(sessionOf("s_v", { member: viewer, nowMs: AT }));
    const removal = { id: "a1", orgId: "org_a", atMs: AT, by: { kind: "operator" as const } };
    await storage.members.removeMember("org_a", viewer.id, {
      ...removal,
      action: "member.removed",
      subject: "x",
      details: {},
    });
    await storage.sessions.create(sessionOf("s_late", { member: viewer, nowMs: AT + 1 }));
    assert.equal((await storage.sessions.find("s_late"))?.member, null);
  },
);

adapterTest(
  "session store ends every session of a member, and every session of a hotkey",
  async ({ storage }) => {
    const a = await addMember(storage, { orgId: "org_a", memberId: "mbr_a", role: "owner", nowMs: AT });
    const b = await addMember(storage, { orgId: "org_a", memberId: "mbr_b", role: "owner", nowMs: AT });
    const viaHotkey = { kind: "hotkey" as const, hotkey: HOTKEY };
    await storage.sessions.create(sessionOf("s_a1", { member: a, nowMs: AT }));
    await storage.sessions.create(sessionOf("s_a2", { member: a, nowMs: AT, via: viaHotkey }));
    await storage.sessions.create(sessionOf("s_b1", { member: b, nowMs: AT }));
    await storage.sessions.create(sessionOf("s_b2", { member: b, nowMs: AT, via: viaHotkey }));
    assert.equal(await storage.sessions.endForHotkey(HOTKEY), 2);
    assert.equal(await storage.sessions.find("s_a2"), null);
    assert.equal(await storage.sessions.find("s_b2"), null);
    assert.equal(await storage.sessions.endForMember(a.id), 1);
    assert.equal(await storage.sessions.find("s_a1"), null);
    assert.notEqual(await storage.sessions.find("s_b1"), null);
    assert.equal(await storage.sessions.endForMember(a.id), 0);
  },
);

function challengeOf(hash: string, over: Partial<ChallengeRecord> = {}): ChallengeRecord {
  return {
    challengeHash: hash,
    browserHash: "b".repeat(64),
    purpose: "hotkey_signin",
    createdAtMs: AT,
    expiresAtMs: AT + 300_000,
    ...over,
  };
}

adapterTest(
  "session store consumes a challenge once, only for its browser, purpose and lifetime",
  async ({ storage }) => {
    const challenge = challengeOf("c".repeat(64));
    await storage.sessions.issueChallenge(challenge);
    const right = { browserHash: challenge.browserHash, purpose: "hotkey_signin" as const, nowMs: AT + 1 };
    assert.equal(
      await storage.sessions.consumeChallenge(challenge.challengeHash, { ...right, browserHash: "x" }),
      null,
    );
    assert.equal(
      await storage.sessions.consumeChallenge(challenge.challengeHash, {
        ...right,
        purpose: "passkey_signin",
      }),
      null,
    );
    assert.equal(
      await storage.sessions.consumeChallenge(challenge.challengeHash, { ...right, nowMs: AT + 300_000 }),
      null,
    );
    assert.deepEqual(await storage.sessions.consumeChallenge(challenge.challengeHash, right), challenge);
    assert.equal(await storage.sessions.consumeChallenge(challenge.challengeHash, right), null);
  },
);

adapterTest(
  "session store purges expired sessions and challenges and keeps live ones",
  async ({ storage }) => {
    const member = await addMember(storage, { orgId: "org_a", memberId: "mbr_1", role: "owner", nowMs: AT });
    await storage.sessions.create(sessionOf("s_old", { member, nowMs: AT, ttlMs: 1_000 }));
    await storage.sessions.create(sessionOf("s_moved", { member, nowMs: AT, ttlMs: 1_000 }));
    await storage.sessions.create(sessionOf("s_live", { member, nowMs: AT, ttlMs: 5_000 }));
    await storage.sessions.touch("s_moved", {
      seenAtMs: AT,
      lastSeenAtMs: AT + 500,
      expiresAtMs: AT + 6_000,
    });
    await storage.sessions.issueChallenge(challengeOf("1".repeat(64), { expiresAtMs: AT + 1_000 }));
    await storage.sessions.issueChallenge(challengeOf("2".repeat(64), { expiresAtMs: AT + 9_000 }));

    assert.deepEqual(await storage.sessions.purgeExpired(AT + 1_000), { sessions: 1, challenges: 1 });
    assert.equal(await storage.sessions.find("s_old"), null);
    assert.notEqual(await storage.sessions.find("s_moved"), null);
    assert.notEqual(await storage.sessions.find("s_live"), null);
    assert.deepEqual(await storage.sessions.purgeExpired(AT + 1_000), { sessions: 0, challenges: 0 });
    assert.deepEqual(await storage.sessions.purgeExpired(AT + 6_000), { sessions: 2, challenges: 0 });
    assert.equal(await storage.sessions.endForMember(member.id), 0);
    const live = { browserHash: "b".repeat(64), purpose: "hotkey_signin" as const, nowMs: AT + 6_000 };
    assert.notEqual(await storage.sessions.consumeChallenge("2".repeat(64), live), null);
  },
);
