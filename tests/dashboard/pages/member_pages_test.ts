import assert from "node:assert/strict";
import { openInvitation } from "../../../actors/identity/mod.ts";
import { ADMIN_TOKEN, adminInit, createOrg } from "../../support/access.ts";
import { joinedMember } from "../../support/dashboard_member.ts";
import { auditActions, getPage, PAGE_ORIGIN, pageText, postForm } from "../../support/dashboard_forms.ts";
import { openTestService, type TestService } from "../../support/test_service.ts";

const ON = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: PAGE_ORIGIN };
const LINK = /<code id="invitation-link">([^<]+)<\/code>/;

async function openInvitations(service: TestService, orgId: string) {
  return await service.storage.members.listInvitations(orgId, { nowMs: service.clock.now() });
}

Deno.test("an owner invites a viewer: the link shown once after the redirect, and it opens the invitation", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const { browser: owner } = await joinedMember(service, orgId, "owner", "Ada");
  const made = await postForm(service, owner, "/dashboard/members/invitations", [["role", "viewer"]]);
  assert.equal(made.status, 303);
  assert.equal(made.headers.get("location"), "/dashboard/members");
  const shown = await pageText(service, owner, "/dashboard/members");
  const link = LINK.exec(shown)?.[1] ?? "";
  assert.ok(link.startsWith(`${PAGE_ORIGIN}/dashboard/invitations/`), link);
  const token = link.split("/").at(-1)!;
  const invitation = await openInvitation(service.storage.members, token, service.clock.now());
  assert.equal(invitation?.role, "viewer");
  assert.equal(invitation?.kind, "join");
  assert.match(shown, new RegExp(`data-invitation-id="${invitation!.id}"`));
  const again = await pageText(service, owner, "/dashboard/members");
  assert.ok(!again.includes(token), "a reload shows the link no more");
  assert.ok(!again.includes(token.split(".")[1]!), "nor its secret");
  assert.equal((await openInvitations(service, orgId)).length, 1, "the reload made no other invitation");
  const [latest] = await service.storage.audit.list(orgId, { limit: 1 });
  assert.equal(latest?.action, "invitation.created");
  assert.equal(latest?.by.kind, "member");
});

Deno.test("the members page lists name, role, joined and passkeys; a name's markup stays inert", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const payload = `<script>alert("x")</script><img src=x onerror=alert(1)>`;
  const { browser: owner } = await joinedMember(service, orgId, "owner", "Ada");
  const { member: viewer } = await joinedMember(service, orgId, "viewer", payload);
  const answer = await getPage(service, owner, "/dashboard/members");
  assert.equal(answer.status, 200);
  assert.equal(answer.headers.get("cache-control"), "no-store");
  const html = await answer.text();
  assert.ok(!html.includes(payload), "the payload is never written as markup");
  assert.ok(!html.includes("<img src=x"), "no element from the name");
  assert.match(html, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt;/);
  const row = new RegExp(
    `<tr data-member-id="${viewer.id}"><th scope="row">[^<]*</th><td>viewer</td><td>[^<]+ UTC</td><td>1</td>`,
  );
  assert.match(html, row);
  assert.match(html, /Ada \(you\)/);
  // Also in the audit log, which names members.
  assert.ok(!(await pageText(service, owner, "/dashboard/audit")).includes(payload));
});

Deno.test("bad input shows the form again naming the field, and saves nothing", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const { browser: owner } = await joinedMember(service, orgId, "owner");
  const { member: viewer } = await joinedMember(service, orgId, "viewer");
  const before = await auditActions(service, orgId);
  for (const fields of [[], [["role", "admin"]], [["role", ""]]] as [string, string][][]) {
    const answer = await postForm(service, owner, "/dashboard/members/invitations", fields);
    assert.equal(answer.status, 400, JSON.stringify(fields));
    const html = await answer.text();
    assert.match(html, /<strong>role<\/strong>/);
    assert.match(html, /id="invite-role-error"/);
    assert.match(html, /aria-invalid="true"/);
  }
  const changed = await postForm(service, owner, `/dashboard/members/${viewer.id}/role`, [["role", "root"]]);
  assert.equal(changed.status, 400);
  assert.match(await changed.text(), new RegExp(`id="member-${viewer.id}-error"`));
  assert.equal((await service.storage.members.member(viewer.id))?.role, "viewer");
  assert.equal((await openInvitations(service, orgId)).length, 0);
  assert.deepEqual(await auditActions(service, orgId), before, "nothing written");
});

Deno.test("an owner changes a role and removes a member, whose sessions end; each change audited", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const { browser: owner } = await joinedMember(service, orgId, "owner");
  const { member: viewer, browser: viewerBrowser } = await joinedMember(service, orgId, "viewer");
  const promoted = await postForm(service, owner, `/dashboard/members/${viewer.id}/role`, [[
    "role",
    "owner",
  ]]);
  assert.equal(promoted.status, 303);
  assert.equal((await service.storage.members.member(viewer.id))?.role, "owner");
  assert.equal((await service.storage.audit.list(orgId, { limit: 1 }))[0]?.action, "member.role_changed");
  assert.equal((await getPage(service, viewerBrowser, "/dashboard")).status, 200);
  const removed = await postForm(service, owner, `/dashboard/members/${viewer.id}/remove`);
  assert.equal(removed.status, 303);
  assert.equal(await service.storage.members.member(viewer.id), null);
  const [entry] = await service.storage.audit.list(orgId, { limit: 1 });
  assert.equal(entry?.action, "member.removed");
  assert.equal(entry?.subject, viewer.id);
  const after = await getPage(service, viewerBrowser, "/dashboard");
  assert.equal(after.status, 303, "the removed member's session ended");
  assert.equal(after.headers.get("location"), "/dashboard/sign-in");
});

Deno.test("the last owner can be neither removed nor demoted: the page again with the reason, not a 500", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const { browser: owner, member } = await joinedMember(service, orgId, "owner", "Ada");
  await joinedMember(service, orgId, "viewer");
  const before = await auditActions(service, orgId);
  for (
    const [path, fields] of [
      [`/dashboard/members/${member.id}/remove`, []],
      [`/dashboard/members/${member.id}/role`, [["role", "viewer"]]],
    ] as [string, [string, string][]][]
  ) {
    const answer = await postForm(service, owner, path, fields);
    assert.equal(answer.status, 409, path);
    const html = await answer.text();
    assert.match(html, /role="alert"/);
    assert.match(html, /Nothing was changed for Ada/);
    assert.match(html, /without an owner/);
    assert.match(html, new RegExp(`id="member-${member.id}-error"`));
  }
  assert.equal((await service.storage.members.member(member.id))?.role, "owner");
  assert.deepEqual(await auditActions(service, orgId), before);
});

Deno.test("a re-enrolment link is shown once and re-enrols that member; an invitation is revoked", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const { browser: owner } = await joinedMember(service, orgId, "owner");
  const { member: viewer } = await joinedMember(service, orgId, "viewer", "Bob");
  assert.equal((await postForm(service, owner, `/dashboard/members/${viewer.id}/reenrol`)).status, 303);
  const shown = await pageText(service, owner, "/dashboard/members");
  assert.match(shown, /This link gives Bob a new passkey/);
  const token = (LINK.exec(shown)?.[1] ?? "").split("/").at(-1)!;
  const invitation = await openInvitation(service.storage.members, token, service.clock.now());
  assert.equal(invitation?.kind, "reenrol");
  assert.equal(invitation?.memberId, viewer.id);
  assert.match(shown, /Re-enrolment of Bob/);
  const revoked = await postForm(service, owner, `/dashboard/members/invitations/${invitation!.id}/revoke`);
  assert.equal(revoked.status, 303);
  assert.equal(await openInvitation(service.storage.members, token, service.clock.now()), null);
  assert.deepEqual((await auditActions(service, orgId)).slice(0, 2), [
    "invitation.revoked",
    "invitation.created",
  ]);
});

Deno.test("a viewer sees the members without the owner's forms, and every owner action answers 403", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const { member: owner } = await joinedMember(service, orgId, "owner");
  const { browser: viewer } = await joinedMember(service, orgId, "viewer");
  const invited = await service.request(
    `/admin/v1/orgs/${orgId}/invitations`,
    adminInit("POST", { role: "viewer" }),
  );
  const invitationId = (await invited.json()).invitation.id;
  const page = await getPage(service, viewer, "/dashboard/members");
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, new RegExp(`data-member-id="${owner.id}"`));
  assert.match(html, new RegExp(`data-invitation-id="${invitationId}"`));
  assert.doesNotMatch(html, /action="\/dashboard\/members/, "no owner's form");
  const before = await auditActions(service, orgId);
  for (
    const path of [
      "/dashboard/members/invitations",
      `/dashboard/members/invitations/${invitationId}/revoke`,
      `/dashboard/members/${owner.id}/role`,
      `/dashboard/members/${owner.id}/remove`,
      `/dashboard/members/${owner.id}/reenrol`,
    ]
  ) {
    assert.equal((await postForm(service, viewer, path, [["role", "viewer"]])).status, 403, path);
  }
  assert.deepEqual(await auditActions(service, orgId), before);
  assert.equal((await service.storage.members.member(owner.id))?.role, "owner");
});

Deno.test("another organisation's member or invitation, or a made-up id, is 404 and nothing changes", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const otherOrg = await createOrg(service.request, "Other");
  const { browser: owner } = await joinedMember(service, orgId, "owner");
  const { member: stranger } = await joinedMember(service, otherOrg, "owner");
  const invited = await service.request(
    `/admin/v1/orgs/${otherOrg}/invitations`,
    adminInit("POST", { role: "viewer" }),
  );
  const invitationId = (await invited.json()).invitation.id;
  for (
    const path of [
      `/dashboard/members/${stranger.id}/role`,
      `/dashboard/members/${stranger.id}/remove`,
      `/dashboard/members/${stranger.id}/reenrol`,
      `/dashboard/members/invitations/${invitationId}/revoke`,
      "/dashboard/members/mbr_000000000000000000000000/remove",
      "/dashboard/members/not-an-id/remove",
      "/dashboard/members/invitations/nope/revoke",
    ]
  ) {
    assert.equal((await postForm(service, owner, path, [["role", "viewer"]])).status, 404, path);
  }
  assert.equal((await service.storage.members.member(stranger.id))?.role, "owner");
  assert.equal((await openInvitations(service, otherOrg)).length, 1);
});

Deno.test("an invitation link's sealed cookie opens only in the session that made it", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const { browser: ada } = await joinedMember(service, orgId, "owner", "Ada");
  const { browser: bob } = await joinedMember(service, orgId, "owner", "Bob");
  assert.equal(
    (await postForm(service, ada, "/dashboard/members/invitations", [["role", "viewer"]])).status,
    303,
  );
  const sealed = ada.cookies.get("__Host-fgw_link_once");
  assert.ok(sealed, "the link travels in a cookie");
  const cookie = ada.setCookies.find((value) =>
    value.startsWith("__Host-fgw_link_once=") && value.length > 30
  )!;
  assert.match(cookie, /HttpOnly/i);
  assert.match(cookie, /SameSite=Strict/i);
  assert.match(cookie, /Max-Age=120/);
  const token = (await openInvitations(service, orgId))[0]!.id;
  assert.ok(!decodeURIComponent(sealed).includes(token), "the cookie holds the link sealed, not in clear");
  bob.cookies.set("__Host-fgw_link_once", sealed);
  const other = await pageText(service, bob, "/dashboard/members");
  assert.doesNotMatch(other, /id="invitation-link"/, "another session cannot open it");
  ada.cookies.set("__Host-fgw_link_once", `${sealed.slice(0, -2)}AA`);
  assert.doesNotMatch(
    await pageText(service, ada, "/dashboard/members"),
    /id="invitation-link"/,
    "nor a tampered one",
  );
});
