import assert from "node:assert/strict";
import { PASSKEY_PATHS } from "../../../routes/dashboard/ceremony/passkey_routes.ts";
import { ADMIN_TOKEN, createOrg } from "../../support/access.ts";
import { joinedMember } from "../../support/dashboard_member.ts";
import { auditActions, getPage, PAGE_ORIGIN, pageText, postForm } from "../../support/dashboard_forms.ts";
import { credentialOf } from "../../support/identity.ts";
import { openTestService } from "../../support/test_service.ts";

const ON = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: PAGE_ORIGIN };

Deno.test("a member lists its passkeys and removes one, but never its last", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  // A viewer manages its own passkeys: they are its own, not the organisation's.
  const { browser, member, credentialId } = await joinedMember(service, orgId, "viewer");
  const page = await getPage(service, browser, "/dashboard/passkeys");
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, new RegExp(`data-credential-id="${credentialId}"`));
  assert.match(html, /your only passkey/);
  assert.doesNotMatch(html, /\/remove"/, "no remove button for the only passkey");
  assert.match(html, /data-passkey="register"/);
  const before = await auditActions(service, orgId);
  const refused = await postForm(service, browser, `/dashboard/passkeys/${credentialId}/remove`);
  assert.equal(refused.status, 409);
  assert.match(await refused.text(), /This is your only passkey/);
  assert.equal((await service.storage.members.listCredentials(member.id)).length, 1);
  assert.deepEqual(await auditActions(service, orgId), before);

  await service.dashboard.askMembership(orgId, {
    type: "addPasskey",
    memberId: member.id,
    credential: credentialOf("cred_second", service.clock.now()),
  });
  assert.match(
    await pageText(service, browser, "/dashboard/passkeys"),
    /\/dashboard\/passkeys\/cred_second\/remove/,
  );
  const removed = await postForm(service, browser, `/dashboard/passkeys/${credentialId}/remove`);
  assert.equal(removed.status, 303);
  assert.equal(removed.headers.get("location"), "/dashboard/passkeys");
  const left = await service.storage.members.listCredentials(member.id);
  assert.deepEqual(left.map((passkey) => passkey.credentialId), ["cred_second"]);
  const [entry] = await service.storage.audit.list(orgId, { limit: 1 });
  assert.equal(entry?.action, "passkey.removed");
  assert.deepEqual(entry?.by, { kind: "member", memberId: member.id });
  assert.equal(entry?.subject, credentialId);
});

Deno.test("two removals of a member's two passkeys at once (two tabs): one is refused, one passkey stays", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const { browser, member, credentialId } = await joinedMember(service, orgId, "owner");
  await service.dashboard.askMembership(orgId, {
    type: "addPasskey",
    memberId: member.id,
    credential: credentialOf("cred_tab_2", service.clock.now()),
  });
  // Both tabs show two passkeys, each with its remove button; each removes a different one, at once.
  const page = await pageText(service, browser, "/dashboard/passkeys");
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
  const answers = await Promise.all(
    [credentialId, "cred_tab_2"].map((id) =>
      browser.fetch((path, init) => service.request(path, init), `/dashboard/passkeys/${id}/remove`, {
        method: "POST",
        headers: {
          accept: "text/html",
          origin: PAGE_ORIGIN,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams([["_csrf", csrf]]),
      })
    ),
  );
  assert.deepEqual(answers.map((answer) => answer.status).toSorted(), [303, 409]);
  const texts = await Promise.all(answers.map((answer) => answer.text()));
  assert.match(texts[answers.findIndex((answer) => answer.status === 409)]!, /This is your only passkey/);
  assert.equal((await service.storage.members.listCredentials(member.id)).length, 1);
  assert.equal(
    (await auditActions(service, orgId)).filter((action) => action === "passkey.removed").length,
    1,
  );
});

Deno.test("another member's passkey, or a made-up one, is 404 and stays", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const otherOrg = await createOrg(service.request, "Other");
  const { browser, member } = await joinedMember(service, orgId, "owner");
  await service.dashboard.askMembership(orgId, {
    type: "addPasskey",
    memberId: member.id,
    credential: credentialOf("cred_mine_2", service.clock.now()),
  });
  const { credentialId: colleagues } = await joinedMember(service, orgId, "viewer");
  const { credentialId: strangers } = await joinedMember(service, otherOrg, "owner");
  for (const id of [colleagues, strangers, "cred_nobody", "not%20base64url"]) {
    const answer = await postForm(service, browser, `/dashboard/passkeys/${id}/remove`);
    assert.equal(answer.status, 404, id);
  }
  assert.ok(await service.storage.members.credential(colleagues));
  assert.ok(await service.storage.members.credential(strangers));
});

Deno.test("signed in, the registration options are for the member itself, its passkeys excluded", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const { browser, member, credentialId } = await joinedMember(service, orgId, "viewer", "Bob");
  const html = await pageText(service, browser, "/dashboard/passkeys");
  const csrf = /data-csrf="([^"]+)"/.exec(html)![1]!;
  assert.ok(html.includes(`data-options="/dashboard${PASSKEY_PATHS.registrationOptions}"`));
  const answer = await browser.fetch(
    (path, init) => service.request(path, init),
    `/dashboard${PASSKEY_PATHS.registrationOptions}`,
    {
      method: "POST",
      headers: { origin: PAGE_ORIGIN, "content-type": "application/json", "x-csrf-token": csrf },
      body: "{}",
    },
  );
  assert.equal(answer.status, 200);
  const options = await answer.json();
  const userId = atob(options.user.id.replaceAll("-", "+").replaceAll("_", "/"));
  assert.equal(userId, member.id);
  assert.equal(options.user.displayName, "Bob");
  assert.deepEqual(options.excludeCredentials.map((entry: { id: string }) => entry.id), [credentialId]);
});

Deno.test("signed out, the passkeys page sends the browser to sign in", async () => {
  await using service = await openTestService({ env: ON });
  const page = await service.request("/dashboard/passkeys", { headers: { accept: "text/html" } });
  assert.equal(page.status, 303);
  assert.equal(page.headers.get("location"), "/dashboard/sign-in");
});
