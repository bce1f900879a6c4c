import assert from "node:assert/strict";
import { ADMIN_TOKEN, createOrg } from "../../support/access.ts";
import { joinedMember } from "../../support/dashboard_member.ts";
import { getPage, PAGE_ORIGIN, pageText, postForm } from "../../support/dashboard_forms.ts";
import { openTestService } from "../../support/test_service.ts";

const ON = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: PAGE_ORIGIN };
const ROW = /<tr data-audit-id="([0-9a-f]+)">/g;

Deno.test("an owner reads the audit log newest first, in words", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const { browser: owner } = await joinedMember(service, orgId, "owner", "Ada");
  const { member: viewer } = await joinedMember(service, orgId, "viewer", "Bob");
  service.clock.advance(60_000);
  assert.equal(
    (await postForm(service, owner, `/dashboard/members/${viewer.id}/role`, [["role", "owner"]])).status,
    303,
  );
  service.clock.advance(60_000);
  assert.equal((await postForm(service, owner, `/dashboard/members/${viewer.id}/remove`)).status, 303);
  const answer = await getPage(service, owner, "/dashboard/audit");
  assert.equal(answer.status, 200);
  const html = await answer.text();
  const text = html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
  const removed = text.indexOf("Ada removed Bob (owner)");
  const changed = text.indexOf("Ada changed the role of Bob from viewer to owner");
  const joined = text.indexOf("Bob joined as a viewer");
  const invited = text.indexOf("The operator invited an owner");
  assert.ok(removed > 0 && removed < changed && changed < joined && joined < invited, text);
  assert.match(html, /<code>member\.removed<\/code>/);
  assert.match(html, /<time datetime="[^"]+Z">[^<]+ UTC<\/time>/);
  assert.doesNotMatch(html, /Older entries/);
});

Deno.test("the audit log pages 50 entries at a time; a forged or foreign cursor is 400", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const otherOrg = await createOrg(service.request, "Other");
  const { browser: owner, member } = await joinedMember(service, orgId, "owner");
  const { browser: stranger } = await joinedMember(service, otherOrg, "owner");
  for (let i = 0; i < 55; i++) {
    await service.dashboard.askMembership(orgId, {
      type: "invite",
      role: "viewer",
      by: { kind: "member", memberId: member.id },
    });
  }
  // 57 entries: the owner's invitation and joining, and the 55 invitations.
  const first = await pageText(service, owner, "/dashboard/audit");
  const firstIds = [...first.matchAll(ROW)].map((match) => match[1]);
  assert.equal(firstIds.length, 50);
  const next = /href="(\/dashboard\/audit\?cursor=[^"]+)" rel="next"/.exec(first)?.[1]?.replaceAll(
    "&amp;",
    "&",
  );
  assert.ok(next);
  const second = await pageText(service, owner, next);
  const secondIds = [...second.matchAll(ROW)].map((match) => match[1]);
  assert.equal(secondIds.length, 7);
  assert.equal(new Set([...firstIds, ...secondIds]).size, 57);
  assert.match(second, /href="\/dashboard\/audit">Newest entries/);
  const words = second.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
  assert.match(
    words,
    /The operator invited an owner \(invitation [0-9a-f]+\) invitation\.created Newest/,
    "oldest last",
  );
  assert.equal((await getPage(service, stranger, next)).status, 400, "another organisation's cursor");
  assert.equal((await getPage(service, owner, `${next}x`)).status, 400, "a forged cursor");
  assert.equal(
    (await getPage(service, owner, "/dashboard/audit?limit=9")).status,
    400,
    "an unknown parameter",
  );
});

Deno.test("a viewer gets 403 for the audit log; signed out, the sign-in page", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  await joinedMember(service, orgId, "owner");
  const { browser: viewer } = await joinedMember(service, orgId, "viewer");
  const refused = await getPage(service, viewer, "/dashboard/audit");
  assert.equal(refused.status, 403);
  assert.doesNotMatch(await refused.text(), /data-audit-id/);
  assert.doesNotMatch(await pageText(service, viewer, "/dashboard/members"), /href="\/dashboard\/audit"/);
  const signedOut = await service.request("/dashboard/audit", { headers: { accept: "text/html" } });
  assert.equal(signedOut.status, 303);
});
