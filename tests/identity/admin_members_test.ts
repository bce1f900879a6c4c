import assert from "node:assert/strict";
import { INVITATION_TTL_MS, openInvitation, parseSecretToken } from "../../actors/identity/mod.ts";
import { ADMIN_TOKEN, adminInit, createOrg, errorCode, HOTKEY_A } from "../support/access.ts";
import { credentialOf } from "../support/identity.ts";
import { openTestService, TEST_START_MS, type TestService } from "../support/test_service.ts";

const ORIGIN = "http://localhost:8080";
const ON = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: `${ORIGIN}/` };

function invite(service: TestService, orgId: string, body: unknown): Promise<Response> {
  return service.request(`/admin/v1/orgs/${orgId}/invitations`, adminInit("POST", body));
}

/** Accepts an invitation link the way the passkey step will: through the MembershipActor. */
async function accept(service: TestService, link: string, credentialId: string) {
  const token = link.slice(`${ORIGIN}/dashboard/invitations/`.length);
  const invitation = await openInvitation(service.storage.members, token, service.clock.now());
  assert.ok(invitation, `the link ${link} opens its invitation`);
  return await service.dashboard.askMembership(invitation.orgId, {
    type: "accept",
    invitationId: invitation.id,
    secret: parseSecretToken(token)!.secret,
    displayName: "Ada",
    credential: credentialOf(credentialId, service.clock.now()),
  });
}

Deno.test("POST invitations answers a single-use sign-in link under FGW_PUBLIC_URL, shown once", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const response = await invite(service, orgId, { role: "owner" });
  assert.equal(response.status, 201);
  const body = await response.json();
  assert.match(
    body.link,
    /^http:\/\/localhost:8080\/dashboard\/invitations\/[0-9a-f]{24}\.[A-Za-z0-9_-]{43}$/,
  );
  assert.deepEqual(body.invitation, {
    id: body.link.split("/").at(-1).split(".")[0],
    orgId,
    role: "owner",
    kind: "join",
    memberId: null,
    createdAt: new Date(TEST_START_MS).toISOString(),
    expiresAt: new Date(TEST_START_MS + INVITATION_TTL_MS).toISOString(),
  });
  const listed = await (await service.request(`/admin/v1/orgs/${orgId}/members`, adminInit("GET"))).json();
  assert.deepEqual(listed, { members: [], invitations: [body.invitation] });
  assert.ok(!JSON.stringify(listed).includes(body.link.split(".").at(-1)), "the secret is never shown again");

  const { member } = await accept(service, body.link, "cred_1");
  const after = await (await service.request(`/admin/v1/orgs/${orgId}/members`, adminInit("GET"))).json();
  assert.deepEqual(after.members, [{
    id: member.id,
    orgId,
    displayName: "Ada",
    role: "owner",
    createdAt: new Date(TEST_START_MS).toISOString(),
  }]);
  assert.deepEqual(after.invitations, []);
  const token = body.link.split("/").at(-1);
  assert.equal(await openInvitation(service.storage.members, token, service.clock.now()), null);
});

Deno.test("a re-enrolment invitation names the member and keeps its role", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const first = await (await invite(service, orgId, { role: "viewer" })).json();
  const { member } = await accept(service, first.link, "cred_1");
  const response = await invite(service, orgId, { memberId: member.id });
  assert.equal(response.status, 201);
  const { invitation, link } = await response.json();
  assert.deepEqual([invitation.kind, invitation.role, invitation.memberId], ["reenrol", "viewer", member.id]);
  const again = await accept(service, link, "cred_2");
  assert.equal(again.member.id, member.id);

  const otherOrg = await createOrg(service.request, "Other");
  assert.equal(await errorCode(await invite(service, otherOrg, { memberId: member.id })), "not_found");
  const unknown = await invite(service, orgId, { memberId: "mbr_000000000000000000000000" });
  assert.deepEqual([unknown.status, await errorCode(unknown)], [404, "not_found"]);
});

Deno.test("POST invitations refuses a bad body with 400 naming the field, and an unknown org with 404", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const bodies: [unknown, string][] = [
    [{}, "role"],
    [{ role: "admin" }, "role"],
    [{ role: "owner", memberId: "mbr_000000000000000000000000" }, "memberId"],
    [{ memberId: "someone" }, "memberId"],
    [{ role: "owner", extra: 1 }, ""],
  ];
  for (const [body, field] of bodies) {
    const response = await invite(service, orgId, body);
    const json = await response.json();
    assert.equal(response.status, 400, JSON.stringify(body));
    assert.equal(json.error.code, "invalid_request");
    const fields = json.error.details.fields.map((f: { field: string }) => f.field);
    if (field !== "") assert.ok(fields.includes(field), `${JSON.stringify(body)} names ${field}: ${fields}`);
  }
  const missing = await invite(service, "org_missing", { role: "owner" });
  assert.deepEqual([missing.status, await errorCode(missing)], [404, "not_found"]);
});

Deno.test("without FGW_PUBLIC_URL the invitation route answers 409 dashboard_off saying how to turn it on", async () => {
  await using service = await openTestService({ env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN } });
  const orgId = await createOrg(service.request);
  const response = await invite(service, orgId, { role: "owner" });
  const body = await response.json();
  assert.deepEqual([response.status, body.error.code], [409, "dashboard_off"]);
  assert.match(body.error.message, /FGW_PUBLIC_URL/);
  assert.equal((await service.request("/dashboard/sign-out", { method: "POST" })).status, 404);
  assert.deepEqual(await service.storage.members.listInvitations(orgId, { nowMs: TEST_START_MS }), []);
});

Deno.test("the audit log pages newest first with a cursor bound to the org", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  for (const role of ["owner", "viewer", "viewer"]) {
    service.clock.advance(1_000);
    await invite(service, orgId, { role });
  }
  const page = async (query: string, org = orgId) =>
    await service.request(`/admin/v1/orgs/${org}/audit${query}`, adminInit("GET"));
  const first = await (await page("?limit=2")).json();
  assert.deepEqual(first.items.map((item: { at: string }) => item.at), [
    new Date(TEST_START_MS + 3_000).toISOString(),
    new Date(TEST_START_MS + 2_000).toISOString(),
  ]);
  assert.deepEqual(first.items[0].by, { kind: "operator" });
  assert.equal(first.items[0].action, "invitation.created");
  const second = await (await page(`?limit=2&cursor=${first.nextCursor}`)).json();
  assert.deepEqual(second.items.map((item: { details: { role: string } }) => item.details.role), ["owner"]);
  assert.equal(second.nextCursor, null);
  const otherOrg = await createOrg(service.request, "Other");
  assert.equal((await page(`?cursor=${first.nextCursor}`, otherOrg)).status, 400);
  assert.equal((await page("", "org_missing")).status, 404);
});

Deno.test("the operator's miner registrations show as not linked with proof, and are in the audit log", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const added = await service.request(
    `/admin/v1/orgs/${orgId}/miners`,
    adminInit("POST", { hotkey: HOTKEY_A }),
  );
  const view = await added.json();
  assert.deepEqual(view.miners.map((m: Record<string, unknown>) => [m.linkedWithProof, m.boundMemberId]), [
    [false, null],
  ]);
  await service.request(`/admin/v1/orgs/${orgId}/miners/${HOTKEY_A}`, adminInit("DELETE"));
  const audit = await (await service.request(`/admin/v1/orgs/${orgId}/audit`, adminInit("GET"))).json();
  assert.deepEqual(audit.items.map((item: Record<string, unknown>) => [item.action, item.subject, item.by]), [
    ["hotkey.unlinked", HOTKEY_A, { kind: "operator" }],
    ["hotkey.registered", HOTKEY_A, { kind: "operator" }],
  ]);
});
