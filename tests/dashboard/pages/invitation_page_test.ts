import assert from "node:assert/strict";
import { INVITATION_TTL_MS, joiningMemberId, openInvitation } from "../../../actors/identity/mod.ts";
import { PASSKEY_PATHS } from "../../../routes/dashboard/ceremony/passkey_routes.ts";
import { ADMIN_TOKEN, adminInit, createOrg } from "../../support/access.ts";
import { TestBrowser } from "../../support/dashboard.ts";
import { openTestService, type TestService } from "../../support/test_service.ts";

const ORIGIN = "http://localhost:8080";
const ON = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: ORIGIN };

async function inviteOwner(service: TestService): Promise<{ orgId: string; path: string; token: string }> {
  const orgId = await createOrg(service.request);
  const response = await service.request(
    `/admin/v1/orgs/${orgId}/invitations`,
    adminInit("POST", { role: "owner" }),
  );
  const { link } = await response.json();
  const path = new URL(link).pathname;
  return { orgId, path, token: path.split("/").at(-1)! };
}

const fetcher = (service: TestService) => (path: string, init?: RequestInit) => service.request(path, init);

Deno.test("an invitation link opens a page explaining the passkey step, with the button and its script", async () => {
  await using service = await openTestService({ env: ON });
  const { path, token } = await inviteOwner(service);
  const browser = new TestBrowser();
  const response = await browser.fetch(fetcher(service), path, { headers: { accept: "text/html" } });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("cache-control"), "no-store");
  assert.match(response.headers.get("content-security-policy") ?? "", /default-src 'self'/);
  const html = await response.text();
  assert.match(html, /Accept your invitation/);
  assert.match(html, /<script src="\/dashboard\/assets\/passkey.js" defer>/);
  const query = `?invitation=${encodeURIComponent(token)}`;
  assert.ok(html.includes(`data-options="/dashboard${PASSKEY_PATHS.registrationOptions}${query}"`));
  assert.doesNotMatch(html, /style=|<script>/);
  assert.ok(browser.cookies.has("__Host-fgw_browser"), "the page gives the browser its pre-session id");
  // Opening the page uses nothing up.
  assert.ok(await openInvitation(service.storage.members, token, service.clock.now()));
});

Deno.test("registration options for an invitation name the member it makes; without one they are refused", async () => {
  await using service = await openTestService({ env: ON });
  const { path, token } = await inviteOwner(service);
  const browser = new TestBrowser();
  const page = await (await browser.fetch(fetcher(service), path)).text();
  const csrf = /data-csrf="([^"]+)"/.exec(page)![1]!;
  const post = (target: string) =>
    browser.fetch(fetcher(service), target, {
      method: "POST",
      headers: { origin: ORIGIN, "content-type": "application/json", "x-csrf-token": csrf },
      body: "{}",
    });
  const options = await post(`/dashboard${PASSKEY_PATHS.registrationOptions}?invitation=${token}`);
  assert.equal(options.status, 200);
  const body = await options.json();
  const invitation = await openInvitation(service.storage.members, token, service.clock.now());
  assert.equal(atob(body.user.id.replaceAll("-", "+").replaceAll("_", "/")), joiningMemberId(invitation!));
  assert.equal(body.rp.id, "localhost");
  const refused = await post(`/dashboard${PASSKEY_PATHS.registrationOptions}?invitation=${token}x`);
  assert.equal(refused.status, 401);
});

Deno.test("a forged, expired or unknown invitation link is a 404 page saying what to do", async () => {
  await using service = await openTestService({ env: ON });
  const { path } = await inviteOwner(service);
  const forged = `${path.slice(0, -4)}AAAA`;
  for (const target of [forged, "/dashboard/invitations/nothing", path]) {
    if (target === path) service.clock.advance(INVITATION_TTL_MS);
    const response = await service.request(target, { headers: { accept: "text/html" } });
    assert.equal(response.status, 404, target);
    assert.match(await response.text(), /cannot be used: it was used already, revoked, or it expired/);
  }
});

Deno.test("the sign-in page offers a passkey button; the home page sends a signed-out browser to it", async () => {
  await using service = await openTestService({ env: ON });
  const signIn = await service.request("/dashboard/sign-in", { headers: { accept: "text/html" } });
  assert.equal(signIn.status, 200);
  assert.match(await signIn.text(), /data-passkey="sign-in"/);
  const home = await service.request("/dashboard", { headers: { accept: "text/html" } });
  assert.equal(home.status, 303);
  assert.equal(home.headers.get("location"), "/dashboard/sign-in");
});
