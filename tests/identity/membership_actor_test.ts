import assert from "node:assert/strict";
import { ManualClock, ServiceError } from "../../actors/kernel/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import {
  type AskMembership,
  INVITATION_TTL_MS,
  membershipActorKind,
  membershipAsker,
  openInvitation,
  parseSecretToken,
  SessionDesk,
} from "../../actors/identity/mod.ts";
import type { AuditActor } from "../../storage/audit_store.ts";
import type { MemberRole } from "../../storage/member_store.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { credentialOf } from "../support/identity.ts";

const START = Date.UTC(2026, 10, 20, 12);
const OPERATOR: AuditActor = { kind: "operator" };

async function world() {
  const clock = new ManualClock(START);
  const storage = await openKvStorage(":memory:");
  const system = new ActorSystem({ clock: clock.now });
  const ask = membershipAsker(system, system.register(membershipActorKind({ ...storage, clock: clock.now })));
  const desk = new SessionDesk({ ...storage, clock: clock.now });
  await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: START });
  await storage.orgs.create({ id: "org_b", name: "B", createdAtMs: START });
  return { clock, storage, ask, desk, [Symbol.asyncDispose]: () => storage.close() };
}

/** Invites as `by` and accepts with a fresh passkey; answers the new member. */
async function join(
  ask: AskMembership,
  orgId: string,
  at: { role: MemberRole; by?: AuditActor; name: string },
) {
  const { invitation, token } = await ask(orgId, { type: "invite", role: at.role, by: at.by ?? OPERATOR });
  const { member } = await ask(orgId, {
    type: "accept",
    invitationId: invitation.id,
    secret: parseSecretToken(token)!.secret,
    displayName: at.name,
    credential: credentialOf(`cred_${at.name}`, START),
  });
  return member;
}

async function refusal(call: Promise<unknown>): Promise<[string, unknown]> {
  const error = await call.then(() => null, (caught) => caught);
  assert.ok(error instanceof ServiceError, `expected a refusal, got ${error}`);
  return [error.code, error.details?.["rule"]];
}

Deno.test("an operator's invitation is accepted once with a passkey, making an owner; its secret is stored hashed", async () => {
  await using w = await world();
  const { invitation, token } = await w.ask("org_a", { type: "invite", role: "owner", by: OPERATOR });
  assert.equal(invitation.expiresAtMs, START + INVITATION_TTL_MS);
  const parsed = parseSecretToken(token)!;
  const stored = await w.storage.members.invitation(parsed.id);
  assert.ok(stored && !JSON.stringify(stored).includes(parsed.secret));
  assert.equal((await openInvitation(w.storage.members, token, START))?.id, invitation.id);

  const accept = (secret: string, credentialId: string) =>
    w.ask("org_a", {
      type: "accept",
      invitationId: invitation.id,
      secret,
      displayName: "Ada",
      credential: credentialOf(credentialId, START),
    });
  const forged = `${parsed.secret.slice(0, -1)}${parsed.secret.endsWith("A") ? "B" : "A"}`;
  assert.deepEqual(await refusal(accept(forged, "c1")), ["not_found", undefined]);
  const { member } = await accept(parsed.secret, "c1");
  assert.deepEqual([member.orgId, member.role, member.displayName], ["org_a", "owner", "Ada"]);
  assert.match(member.id, /^mbr_[0-9a-f]{24}$/);
  assert.deepEqual(await refusal(accept(parsed.secret, "c2")), ["not_found", undefined]);
  assert.equal(await openInvitation(w.storage.members, token, START), null);
  const log = await w.storage.audit.list("org_a", { limit: 10 });
  assert.deepEqual(log.map((entry) => [entry.action, entry.by.kind]), [
    ["member.joined", "member"],
    ["invitation.created", "operator"],
  ]);
});

Deno.test("an invitation expires after 24 h, and a taken passkey leaves it unused", async () => {
  await using w = await world();
  await join(w.ask, "org_a", { role: "owner", name: "first" });
  const { invitation, token } = await w.ask("org_a", { type: "invite", role: "viewer", by: OPERATOR });
  const secret = parseSecretToken(token)!.secret;
  const accept = (credentialId: string) =>
    w.ask("org_a", {
      type: "accept",
      invitationId: invitation.id,
      secret,
      displayName: "B",
      credential: credentialOf(credentialId, START),
    });
  assert.deepEqual(await refusal(accept("cred_first")), ["conflict", undefined]);
  assert.notEqual(await openInvitation(w.storage.members, token, w.clock.now()), null);
  w.clock.advance(INVITATION_TTL_MS);
  assert.deepEqual(await refusal(accept("cred_new")), ["not_found", undefined]);
});

Deno.test("owners invite and remove members; a viewer cannot, and another org's member is not found", async () => {
  await using w = await world();
  const owner = await join(w.ask, "org_a", { role: "owner", name: "owner" });
  const asOwner: AuditActor = { kind: "member", memberId: owner.id };
  const viewer = await join(w.ask, "org_a", { role: "viewer", by: asOwner, name: "viewer" });
  const stranger = await join(w.ask, "org_b", { role: "owner", name: "stranger" });
  const asViewer: AuditActor = { kind: "member", memberId: viewer.id };
  const asStranger: AuditActor = { kind: "member", memberId: stranger.id };

  assert.deepEqual(await refusal(w.ask("org_a", { type: "invite", role: "owner", by: asViewer })), [
    "insufficient_role",
    undefined,
  ]);
  assert.deepEqual(
    await refusal(w.ask("org_a", { type: "removeMember", memberId: owner.id, by: asViewer })),
    [
      "insufficient_role",
      undefined,
    ],
  );
  assert.deepEqual(await refusal(w.ask("org_a", { type: "invite", role: "owner", by: asStranger })), [
    "not_found",
    undefined,
  ]);
  assert.deepEqual(
    await refusal(w.ask("org_b", { type: "removeMember", memberId: viewer.id, by: asStranger })),
    [
      "not_found",
      undefined,
    ],
  );
  assert.deepEqual(await refusal(w.ask("org_a", { type: "reenrol", memberId: stranger.id, by: asOwner })), [
    "not_found",
    undefined,
  ]);
  const { member } = await w.ask("org_a", {
    type: "changeRole",
    memberId: viewer.id,
    role: "owner",
    by: asOwner,
  });
  assert.equal(member.role, "owner");
});

Deno.test("the last owner can be neither removed nor demoted", async () => {
  await using w = await world();
  const owner = await join(w.ask, "org_a", { role: "owner", name: "owner" });
  const by: AuditActor = { kind: "member", memberId: owner.id };
  assert.deepEqual(await refusal(w.ask("org_a", { type: "removeMember", memberId: owner.id, by })), [
    "conflict",
    "last_owner",
  ]);
  assert.deepEqual(
    await refusal(w.ask("org_a", { type: "changeRole", memberId: owner.id, role: "viewer", by: OPERATOR })),
    ["conflict", "last_owner"],
  );
  assert.equal((await w.storage.members.member(owner.id))?.role, "owner");
});

Deno.test("removing a member ends its sessions and removes its passkeys, with an audit entry", async () => {
  await using w = await world();
  const owner = await join(w.ask, "org_a", { role: "owner", name: "owner" });
  const viewer = await join(w.ask, "org_a", { role: "viewer", name: "viewer" });
  const { token } = await w.desk.start(viewer.id, { kind: "passkey" });
  assert.notEqual(await w.desk.resume(token), null);
  const by: AuditActor = { kind: "member", memberId: owner.id };
  await w.ask("org_a", { type: "removeMember", memberId: viewer.id, by });
  assert.equal(await w.desk.resume(token), null);
  assert.deepEqual(await w.storage.members.listCredentials(viewer.id), []);
  assert.equal(await w.storage.members.credential(`cred_viewer`), null);
  const [latest] = await w.storage.audit.list("org_a", { limit: 1 });
  assert.deepEqual([latest?.action, latest?.subject, latest?.by], ["member.removed", viewer.id, by]);
});

Deno.test("a re-enrolment gives a member a new passkey, keeping its id and role", async () => {
  await using w = await world();
  const viewer = await join(w.ask, "org_a", { role: "viewer", name: "viewer" });
  await join(w.ask, "org_a", { role: "owner", name: "owner" });
  const { invitation, token } = await w.ask("org_a", { type: "reenrol", memberId: viewer.id, by: OPERATOR });
  assert.deepEqual([invitation.kind, invitation.role, invitation.memberId], ["reenrol", "viewer", viewer.id]);
  const { member } = await w.ask("org_a", {
    type: "accept",
    invitationId: invitation.id,
    secret: parseSecretToken(token)!.secret,
    displayName: "ignored",
    credential: credentialOf("cred_again", START),
  });
  assert.deepEqual(member, viewer);
  assert.deepEqual(
    (await w.storage.members.listCredentials(viewer.id)).map((c) => c.credentialId),
    [
      "cred_again",
      "cred_viewer",
    ].toSorted(),
  );
  const [latest] = await w.storage.audit.list("org_a", { limit: 1 });
  assert.equal(latest?.action, "member.reenrolled");
});

Deno.test("members add and remove their own passkeys only", async () => {
  await using w = await world();
  const owner = await join(w.ask, "org_a", { role: "owner", name: "owner" });
  const viewer = await join(w.ask, "org_a", { role: "viewer", name: "viewer" });
  await w.ask("org_a", {
    type: "addPasskey",
    memberId: viewer.id,
    credential: credentialOf("cred_2", START),
  });
  assert.deepEqual(
    await refusal(
      w.ask("org_a", { type: "addPasskey", memberId: owner.id, credential: credentialOf("cred_2", START) }),
    ),
    ["conflict", undefined],
  );
  assert.deepEqual(
    await refusal(w.ask("org_a", { type: "removePasskey", memberId: owner.id, credentialId: "cred_2" })),
    ["not_found", undefined],
  );
  assert.deepEqual(
    await refusal(w.ask("org_b", { type: "removePasskey", memberId: viewer.id, credentialId: "cred_2" })),
    ["not_found", undefined],
  );
  await w.ask("org_a", { type: "removePasskey", memberId: viewer.id, credentialId: "cred_2" });
  assert.deepEqual((await w.storage.members.listCredentials(viewer.id)).map((c) => c.credentialId), [
    "cred_viewer",
  ]);
  const actions = (await w.storage.audit.list("org_a", { limit: 2 })).map((entry) => entry.action);
  assert.deepEqual(actions, ["passkey.removed", "passkey.added"]);
});

Deno.test("a member's last passkey is refused with 409 last_passkey, nothing written", async () => {
  await using w = await world();
  const viewer = await join(w.ask, "org_a", { role: "viewer", name: "viewer" });
  const before = await w.storage.audit.list("org_a", { limit: 10 });
  const error = await w.ask("org_a", {
    type: "removePasskey",
    memberId: viewer.id,
    credentialId: "cred_viewer",
  })
    .then(() => null, (caught) => caught);
  assert.ok(error instanceof ServiceError);
  assert.equal(error.code, "conflict");
  assert.deepEqual(error.details, { rule: "last_passkey" });
  assert.match(error.message, /only passkey/);
  assert.ok(await w.storage.members.credential("cred_viewer"));
  assert.deepEqual(await w.storage.audit.list("org_a", { limit: 10 }), before);
});

Deno.test("an owner revokes an open invitation; it opens nothing after", async () => {
  await using w = await world();
  const owner = await join(w.ask, "org_a", { role: "owner", name: "owner" });
  const by: AuditActor = { kind: "member", memberId: owner.id };
  const { invitation, token } = await w.ask("org_a", { type: "invite", role: "viewer", by });
  assert.deepEqual(
    await refusal(w.ask("org_b", { type: "revokeInvitation", invitationId: invitation.id, by: OPERATOR })),
    [
      "not_found",
      undefined,
    ],
  );
  await w.ask("org_a", { type: "revokeInvitation", invitationId: invitation.id, by });
  assert.equal(await openInvitation(w.storage.members, token, START), null);
  assert.deepEqual(await w.storage.members.listInvitations("org_a", { nowMs: START }), []);
});
