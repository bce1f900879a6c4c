import assert from "node:assert/strict";
import { HOUR_MS, ManualClock } from "../../actors/kernel/mod.ts";
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from "../../actors/identity/mod.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import type { Storage } from "../../storage/storage.ts";
import { adapterTest } from "../support/adapters.ts";
import { dashboardTestApp, type Fetcher, fetcherOf, ORIGIN, TestBrowser } from "../support/dashboard.ts";
import { addMember } from "../support/identity.ts";

const START = Date.UTC(2026, 10, 20, 12);

async function world(storage?: Storage) {
  const clock = new ManualClock(START);
  const store = storage ?? await openKvStorage(":memory:");
  const { app, desk } = dashboardTestApp(store, clock.now);
  const owner = await addMember(store, {
    orgId: "org_a",
    memberId: "mbr_owner",
    role: "owner",
    nowMs: START,
  });
  return {
    clock,
    storage: store,
    app: fetcherOf(app),
    desk,
    owner,
    [Symbol.asyncDispose]: () => store.close(),
  };
}

async function signedIn(app: Fetcher, memberId: string): Promise<TestBrowser> {
  const browser = new TestBrowser();
  const answer = await browser.post(app, "/dashboard/test-sign-in", { memberId });
  assert.equal(answer.status, 303);
  return browser;
}

async function errorOf(response: Response): Promise<{ status: number; code: string; reason?: string }> {
  const body = await response.json();
  return { status: response.status, code: body.error?.code, reason: body.error?.details?.reason };
}

Deno.test("signing in sets the __Host- session cookie: HttpOnly, Secure, SameSite=Lax, Path=/, no Domain", async () => {
  await using w = await world();
  const browser = await signedIn(w.app, w.owner.id);
  const session = browser.setCookies.find((cookie) => cookie.startsWith("__Host-fgw_session="));
  assert.ok(session, browser.setCookies.join("\n"));
  const attributes = session.split(";").slice(1).map((part) => part.trim());
  assert.deepEqual(attributes.toSorted(), ["HttpOnly", "Max-Age=604800", "Path=/", "SameSite=Lax", "Secure"]);
  assert.match(session, /^__Host-fgw_session=[0-9a-f]{24}\.[A-Za-z0-9_-]{43};/);
  const pre = browser.setCookies.find((cookie) => cookie.startsWith("__Host-fgw_browser="));
  assert.match(pre ?? "", /; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
  const me = await (await browser.fetch(w.app, "/dashboard/me")).json();
  assert.deepEqual([me.memberId, me.role], [w.owner.id, "owner"]);
});

Deno.test("every sign-in makes a new session id and ends the browser's previous session", async () => {
  await using w = await world();
  const browser = await signedIn(w.app, w.owner.id);
  const first = await (await browser.fetch(w.app, "/dashboard/me")).json();
  const oldCookie = browser.cookies.get("__Host-fgw_session")!;
  await browser.post(w.app, "/dashboard/test-sign-in", { memberId: w.owner.id });
  const second = await (await browser.fetch(w.app, "/dashboard/me")).json();
  assert.notEqual(second.sessionId, first.sessionId);
  assert.equal(await w.storage.sessions.find(first.sessionId), null);
  const stale = new TestBrowser();
  stale.cookies.set("__Host-fgw_session", oldCookie);
  assert.equal((await stale.fetch(w.app, "/dashboard/me")).status, 401);
  assert.ok(stale.setCookies.some((cookie) => /^__Host-fgw_session=;.*Max-Age=0/.test(cookie)));
});

Deno.test("a state-changing request without Origin, or from another origin, is refused", async () => {
  await using w = await world();
  const browser = await signedIn(w.app, w.owner.id);
  const token = await browser.csrfToken(w.app);
  const post = (origin: string | undefined) =>
    browser.fetch(w.app, "/dashboard/owner-action", {
      method: "POST",
      headers: { "x-csrf-token": token, ...(origin === undefined ? {} : { origin }) },
    });
  assert.deepEqual(await errorOf(await post(undefined)), {
    status: 403,
    code: "csrf_refused",
    reason: "origin_missing",
  });
  for (const foreign of ["https://evil.example", "http://localhost:8081", "null", `${ORIGIN}/`]) {
    assert.deepEqual(await errorOf(await post(foreign)), {
      status: 403,
      code: "csrf_refused",
      reason: "origin_foreign",
    }, foreign);
  }
  assert.equal((await post(ORIGIN)).status, 200);
});

Deno.test("a state-changing request without its session's CSRF token, or with a wrong one, is refused", async () => {
  await using w = await world();
  const browser = await signedIn(w.app, w.owner.id);
  const form = (fields: Record<string, string>) =>
    browser.fetch(w.app, "/dashboard/owner-action", {
      method: "POST",
      headers: { origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    });
  assert.deepEqual(await errorOf(await form({})), {
    status: 403,
    code: "csrf_refused",
    reason: "token_missing",
  });
  const other = await signedIn(w.app, w.owner.id);
  const othersToken = await other.csrfToken(w.app);
  assert.deepEqual(await errorOf(await form({ _csrf: othersToken })), {
    status: 403,
    code: "csrf_refused",
    reason: "token_wrong",
  });
  assert.deepEqual(await errorOf(await form({ _csrf: "x".repeat(43) })), {
    status: 403,
    code: "csrf_refused",
    reason: "token_wrong",
  });
  const token = await browser.csrfToken(w.app);
  assert.equal((await form({ _csrf: token })).status, 200);
  const viaHeader = await browser.fetch(w.app, "/dashboard/owner-action", {
    method: "POST",
    headers: { origin: ORIGIN, "x-csrf-token": token },
  });
  assert.equal(viaHeader.status, 200);
  // A signed-out browser with no pre-session id has no token that could match.
  const stranger = await new TestBrowser().fetch(w.app, "/dashboard/test-sign-in", {
    method: "POST",
    headers: { origin: ORIGIN, "x-csrf-token": token },
  });
  assert.deepEqual(await errorOf(stranger), { status: 403, code: "csrf_refused", reason: "token_wrong" });
});

Deno.test("a session ends after 12 h idle, and 7 d after sign-in however busy", async () => {
  await using w = await world();
  const idle = await signedIn(w.app, w.owner.id);
  w.clock.advance(SESSION_IDLE_MS - 1);
  assert.equal((await idle.fetch(w.app, "/dashboard/me")).status, 200);
  w.clock.advance(SESSION_IDLE_MS - 1);
  assert.equal((await idle.fetch(w.app, "/dashboard/me")).status, 200);
  w.clock.advance(SESSION_IDLE_MS);
  assert.equal((await idle.fetch(w.app, "/dashboard/me")).status, 401);

  const busy = await signedIn(w.app, w.owner.id);
  const started = w.clock.now();
  while (w.clock.now() + 11 * HOUR_MS < started + SESSION_ABSOLUTE_MS) {
    w.clock.advance(11 * HOUR_MS);
    assert.equal((await busy.fetch(w.app, "/dashboard/me")).status, 200);
  }
  w.clock.set(started + SESSION_ABSOLUTE_MS - 1);
  assert.equal((await busy.fetch(w.app, "/dashboard/me")).status, 200);
  w.clock.set(started + SESSION_ABSOLUTE_MS);
  assert.equal((await busy.fetch(w.app, "/dashboard/me")).status, 401);
});

Deno.test("a session's last-seen time is written at most once a minute", async () => {
  await using w = await world();
  const browser = await signedIn(w.app, w.owner.id);
  const { sessionId } = await (await browser.fetch(w.app, "/dashboard/me")).json();
  w.clock.advance(59_999);
  await browser.fetch(w.app, "/dashboard/me");
  assert.equal((await w.storage.sessions.find(sessionId))?.session.lastSeenAtMs, START);
  w.clock.advance(1);
  await browser.fetch(w.app, "/dashboard/me");
  const seen = (await w.storage.sessions.find(sessionId))?.session;
  assert.deepEqual([seen?.lastSeenAtMs, seen?.expiresAtMs], [
    START + 60_000,
    START + 60_000 + SESSION_IDLE_MS,
  ]);
});

Deno.test("every dashboard answer is Cache-Control: no-store, pages, redirects and errors alike", async () => {
  await using w = await world();
  const browser = await signedIn(w.app, w.owner.id);
  const answers = [
    await browser.fetch(w.app, "/dashboard/me"),
    await new TestBrowser().fetch(w.app, "/dashboard/me", { headers: { accept: "text/html" } }),
    await new TestBrowser().fetch(w.app, "/dashboard/me"),
    await browser.fetch(w.app, "/dashboard/owner-action", { method: "POST" }),
    await browser.post(w.app, "/dashboard/sign-out"),
    await browser.fetch(w.app, "/dashboard/csrf"),
  ];
  assert.deepEqual(answers.map((answer) => answer.status), [200, 303, 401, 403, 303, 200]);
  for (const answer of answers) assert.equal(answer.headers.get("cache-control"), "no-store");
});

Deno.test("requireMember: sign-in first, owners only for owner actions, another org's resource not found", async () => {
  await using w = await world();
  const page = await new TestBrowser().fetch(w.app, "/dashboard/me", { headers: { accept: "text/html" } });
  assert.deepEqual([page.status, page.headers.get("location")], [303, "/dashboard/sign-in"]);
  assert.deepEqual(await errorOf(await new TestBrowser().fetch(w.app, "/dashboard/me")), {
    status: 401,
    code: "unauthenticated",
    reason: undefined,
  });
  const viewer = await addMember(w.storage, {
    orgId: "org_a",
    memberId: "mbr_viewer",
    role: "viewer",
    nowMs: START,
  });
  const asViewer = await signedIn(w.app, viewer.id);
  assert.deepEqual(await errorOf(await asViewer.post(w.app, "/dashboard/owner-action")), {
    status: 403,
    code: "insufficient_role",
    reason: undefined,
  });
  const asOwner = await signedIn(w.app, w.owner.id);
  assert.equal((await asOwner.post(w.app, "/dashboard/owner-action")).status, 200);
  assert.equal((await asOwner.fetch(w.app, "/dashboard/orgs/org_a/thing")).status, 200);
  assert.deepEqual(await errorOf(await asOwner.fetch(w.app, "/dashboard/orgs/org_b/thing")), {
    status: 404,
    code: "not_found",
    reason: undefined,
  });
  // A demotion takes effect at the next request of a session already signed in.
  await w.storage.members.changeRole("org_a", viewer.id, {
    role: "owner",
    audit: {
      id: "a",
      orgId: "org_a",
      atMs: START,
      by: { kind: "operator" },
      action: "member.role_changed",
      subject: viewer.id,
      details: {},
    },
  });
  assert.equal((await asViewer.post(w.app, "/dashboard/owner-action")).status, 200);
});

adapterTest("signing out on one instance ends the session on another sharing the store", async (adapter) => {
  await using a = await world(adapter.storage);
  const other = dashboardTestApp(await adapter.openAnother(), a.clock.now);
  const b = fetcherOf(other.app);
  const browser = await signedIn(a.app, a.owner.id);
  assert.equal((await browser.fetch(b, "/dashboard/me")).status, 200);
  const out = await browser.post(b, "/dashboard/sign-out");
  assert.deepEqual([out.status, out.headers.get("location")], [303, "/dashboard/sign-in"]);
  assert.ok(browser.setCookies.some((cookie) => /^__Host-fgw_session=;.*Max-Age=0/.test(cookie)));
  // The browser's cookie is gone; one kept from before is refused on the first instance too.
  const kept = new TestBrowser();
  kept.cookies.set(
    "__Host-fgw_session",
    browser.setCookies.find((c) => /^__Host-fgw_session=[0-9a-f]/.test(c))!
      .split(";")[0]!.split("=")[1]!,
  );
  assert.equal((await kept.fetch(a.app, "/dashboard/me")).status, 401);
});
