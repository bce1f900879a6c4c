import assert from "node:assert/strict";
import { HOUR_MS, ManualClock } from "../../actors/kernel/mod.ts";
import { identityPurgeJob, INVITATION_TTL_MS, SessionDesk } from "../../actors/identity/mod.ts";
import { adapterTest } from "../support/adapters.ts";
import { addMember, auditOf, invitationOf } from "../support/identity.ts";
import { runJobOnce } from "../support/jobs.ts";

const START = Date.UTC(2026, 10, 20, 12);

adapterTest(
  "the purge job deletes ended sessions, expired challenges and invitations, and keeps the rest",
  async ({ storage }) => {
    const clock = new ManualClock(START);
    const desk = new SessionDesk({ ...storage, clock: clock.now });
    const owner = await addMember(storage, {
      orgId: "org_a",
      memberId: "mbr_1",
      role: "owner",
      nowMs: START,
    });
    const old = await desk.start(owner.id, { kind: "passkey" });
    await desk.issueChallenge("browser", "passkey_signin");
    const invitation = invitationOf("inv_old", { orgId: "org_a", nowMs: START });
    await storage.members.createInvitation(
      invitation,
      auditOf("org_a", "invitation.created", { subject: "i", atMs: START }),
    );

    clock.set(START + INVITATION_TTL_MS - HOUR_MS);
    const fresh = await desk.start(owner.id, { kind: "passkey" });
    clock.set(START + INVITATION_TTL_MS - 60_000);
    const challenge = await desk.issueChallenge("browser", "passkey_signin");
    clock.set(START + INVITATION_TTL_MS);
    const job = identityPurgeJob(storage);
    assert.equal(job.name, "identity_purge");
    await runJobOnce(job, { leases: storage.jobLeases, nowMs: clock.now() });

    assert.equal(await storage.sessions.find(old.session.id), null);
    assert.equal(await storage.members.invitation("inv_old"), null);
    assert.notEqual(await storage.sessions.find(fresh.session.id), null);
    assert.equal(await desk.consumeChallenge(challenge, "browser", "passkey_signin"), true);
    assert.deepEqual(await storage.sessions.purgeExpired(clock.now()), { sessions: 0, challenges: 0 });
    assert.equal(await storage.members.purgeExpiredInvitations(clock.now()), 0);
  },
);
