import assert from "node:assert/strict";
import { ManualClock, ServiceError } from "../../actors/kernel/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import { orgActorKind, orgAsker } from "../../actors/billing/mod.ts";
import { CHALLENGE_TTL_MS, SessionDesk } from "../../actors/identity/mod.ts";
import type { AuditActor } from "../../storage/audit_store.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { HOTKEY_A, HOTKEY_B } from "../support/access.ts";
import { addMember } from "../support/identity.ts";

const START = Date.UTC(2026, 10, 20, 12);
const HOTKEY = { kind: "hotkey" as const, hotkey: HOTKEY_A };

async function world() {
  const clock = new ManualClock(START);
  const storage = await openKvStorage(":memory:");
  const system = new ActorSystem({ clock: clock.now });
  const kind = orgActorKind({ ...storage, clock: clock.now, holdTtlMs: 60_000 });
  const askOrg = orgAsker(system, system.register(kind));
  const desk = new SessionDesk({ ...storage, clock: clock.now });
  const owner = await addMember(storage, {
    orgId: "org_a",
    memberId: "mbr_owner",
    role: "owner",
    nowMs: START,
  });
  const viewer = await addMember(storage, {
    orgId: "org_a",
    memberId: "mbr_viewer",
    role: "viewer",
    nowMs: START,
  });
  const asOwner: AuditActor = { kind: "member", memberId: owner.id };
  return {
    clock,
    storage,
    askOrg,
    desk,
    owner,
    viewer,
    asOwner,
    [Symbol.asyncDispose]: () => storage.close(),
  };
}

async function codeOf(call: Promise<unknown>): Promise<string> {
  const error = await call.then(() => null, (caught) => caught);
  assert.ok(error instanceof ServiceError, `expected a refusal, got ${error}`);
  return error.code;
}

Deno.test("a hotkey signs in only when linked with proof and bound to the member, with that member's role", async () => {
  await using w = await world();
  await w.askOrg("org_a", { type: "registerMiner", hotkey: HOTKEY_A });
  assert.equal(await codeOf(w.desk.start(w.viewer.id, HOTKEY)), "unauthenticated");
  assert.equal(
    await codeOf(
      w.askOrg("org_a", { type: "bindMiner", hotkey: HOTKEY_A, memberId: w.viewer.id, by: w.asOwner }),
    ),
    "conflict",
  );
  await w.askOrg("org_a", { type: "registerMiner", hotkey: HOTKEY_A, proof: true, by: w.asOwner });
  assert.equal(await codeOf(w.desk.start(w.viewer.id, HOTKEY)), "unauthenticated");
  await w.askOrg("org_a", { type: "bindMiner", hotkey: HOTKEY_A, memberId: w.viewer.id, by: w.asOwner });
  assert.equal(await codeOf(w.desk.start(w.owner.id, HOTKEY)), "unauthenticated");
  const { token } = await w.desk.start(w.viewer.id, HOTKEY);
  const signedIn = await w.desk.resume(token);
  assert.deepEqual([signedIn?.member.id, signedIn?.member.role], [w.viewer.id, "viewer"]);
  const log = await w.storage.audit.list("org_a", { limit: 2 });
  assert.deepEqual(log.map((entry) => [entry.action, entry.by]), [
    ["hotkey.bound", w.asOwner],
    ["hotkey.linked", w.asOwner],
  ]);
});

Deno.test("unlinking a hotkey, or binding it to another member, ends the sessions it signed in", async () => {
  await using w = await world();
  await w.askOrg("org_a", { type: "registerMiner", hotkey: HOTKEY_A, proof: true, by: w.asOwner });
  await w.askOrg("org_a", { type: "bindMiner", hotkey: HOTKEY_A, memberId: w.viewer.id, by: w.asOwner });
  const passkey = await w.desk.start(w.viewer.id, { kind: "passkey" });
  const first = await w.desk.start(w.viewer.id, HOTKEY);
  await w.askOrg("org_a", { type: "bindMiner", hotkey: HOTKEY_A, memberId: w.owner.id, by: w.asOwner });
  assert.equal(await w.desk.resume(first.token), null);
  const second = await w.desk.start(w.owner.id, HOTKEY);
  assert.equal((await w.desk.resume(second.token))?.member.id, w.owner.id);
  await w.askOrg("org_a", { type: "unregisterMiner", hotkey: HOTKEY_A, by: w.asOwner });
  assert.equal(await w.desk.resume(second.token), null);
  assert.equal(await w.storage.sessions.find(second.session.id), null);
  assert.notEqual(await w.desk.resume(passkey.token), null);
  const [latest] = await w.storage.audit.list("org_a", { limit: 1 });
  assert.deepEqual([latest?.action, latest?.subject], ["hotkey.unlinked", HOTKEY_A]);
});

Deno.test("a viewer cannot link, bind or unlink a hotkey; a member of another org is not found", async () => {
  await using w = await world();
  const stranger = await addMember(w.storage, {
    orgId: "org_b",
    memberId: "mbr_b",
    role: "owner",
    nowMs: START,
  });
  const asViewer: AuditActor = { kind: "member", memberId: w.viewer.id };
  const asStranger: AuditActor = { kind: "member", memberId: stranger.id };
  assert.equal(
    await codeOf(w.askOrg("org_a", { type: "registerMiner", hotkey: HOTKEY_B, proof: true, by: asViewer })),
    "insufficient_role",
  );
  assert.equal(
    await codeOf(w.askOrg("org_a", { type: "registerMiner", hotkey: HOTKEY_B, proof: true, by: asStranger })),
    "not_found",
  );
  await w.askOrg("org_a", { type: "registerMiner", hotkey: HOTKEY_B, proof: true, by: w.asOwner });
  assert.equal(
    await codeOf(
      w.askOrg("org_a", { type: "bindMiner", hotkey: HOTKEY_B, memberId: w.viewer.id, by: asViewer }),
    ),
    "insufficient_role",
  );
  assert.equal(
    await codeOf(w.askOrg("org_a", { type: "unregisterMiner", hotkey: HOTKEY_B, by: asViewer })),
    "insufficient_role",
  );
  assert.equal(
    await codeOf(w.askOrg("org_b", { type: "registerMiner", hotkey: HOTKEY_B, proof: true, by: asStranger })),
    "conflict",
  );
});

Deno.test("a session token with a wrong secret or of the wrong shape resumes nothing", async () => {
  await using w = await world();
  const { token, session } = await w.desk.start(w.owner.id, { kind: "passkey" });
  const last = token.at(-1) === "A" ? "B" : "A";
  assert.equal(await w.desk.resume(`${token.slice(0, -1)}${last}`), null);
  assert.equal(await w.desk.resume(session.id), null);
  assert.equal(await w.desk.resume(""), null);
  assert.notEqual(await w.desk.resume(token), null);
  assert.equal(await codeOf(w.desk.start("mbr_nobody", { kind: "passkey" })), "not_found");
});

Deno.test("a sign-in challenge is used once, by the browser it was issued to, for its ceremony, within 5 min", async () => {
  await using w = await world();
  const challenge = await w.desk.issueChallenge("browser-1", "hotkey_signin");
  assert.match(challenge, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(await w.desk.consumeChallenge(challenge, "browser-2", "hotkey_signin"), false);
  assert.equal(await w.desk.consumeChallenge(challenge, "browser-1", "passkey_signin"), false);
  assert.equal(await w.desk.consumeChallenge(challenge, "browser-1", "hotkey_signin"), true);
  assert.equal(await w.desk.consumeChallenge(challenge, "browser-1", "hotkey_signin"), false);

  const late = await w.desk.issueChallenge("browser-1", "hotkey_signin");
  w.clock.advance(CHALLENGE_TTL_MS);
  assert.equal(await w.desk.consumeChallenge(late, "browser-1", "hotkey_signin"), false);
  assert.equal(await w.desk.consumeChallenge("forged", "browser-1", "hotkey_signin"), false);
});
