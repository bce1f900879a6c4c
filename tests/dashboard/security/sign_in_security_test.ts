/**
 * Sign-in through the service's real passkey endpoints (a software passkey answers): a new session
 * id and the cookie's flags at sign-in, a replayed or late answer refused, an invitation used once.
 */
import assert from "node:assert/strict";
import { CHALLENGE_TTL_MS } from "../../../actors/ceremony/mod.ts";
import { ADMIN_TOKEN, adminInit, createOrg } from "../../support/access.ts";
import { type Fetcher, ORIGIN, TestBrowser } from "../../support/dashboard.ts";
import { openInvitation, parseSecretToken, SESSION_IDLE_MS } from "../../../actors/identity/mod.ts";
import { runJobOnce } from "../../support/jobs.ts";
import { credentialOf } from "../../support/identity.ts";
import {
  fromAddress,
  memberWithPasskey,
  postJson,
  sendSignIn,
  signInChallenge,
  signInVisitor,
  signInWithPasskey,
} from "../../support/dashboard_sign_in.ts";
import { openTestService } from "../../support/test_service.ts";

const ON = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: ORIGIN };
const SESSION = "__Host-fgw_session";

/** The CSRF token a signed-in browser's home page gives it. */
async function homeCsrf(browser: TestBrowser, fetcher: Fetcher): Promise<string> {
  const page = await (await browser.fetch(fetcher, "/dashboard", { headers: { accept: "text/html" } }))
    .text();
  return /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
}

Deno.test("a passkey sign-in sets a new session id with the __Host- flags; a planted or previous session is not kept", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const { memberId, passkey } = await memberWithPasskey(service, orgId, "owner");
  const fetcher = fromAddress(service, "198.51.100.1");
  // A session of the member's that an attacker planted in the browser (fixation), then sign-in.
  const planted = await service.dashboard.sessions.start(memberId, { kind: "passkey" });
  const visitor = { browser: new TestBrowser(), csrf: "" };
  visitor.browser.cookies.set(SESSION, planted.token);
  visitor.csrf = await homeCsrf(visitor.browser, fetcher);
  const first = await signInWithPasskey(fetcher, passkey, visitor);
  assert.equal(first.response.status, 200);
  const cookie = visitor.browser.setCookies.findLast((line) =>
    line.startsWith(`${SESSION}=`) && !/Max-Age=0/.test(line)
  )!;
  assert.deepEqual(
    cookie.split(";").slice(1).map((part) => part.trim()).toSorted(),
    ["HttpOnly", "Max-Age=604800", "Path=/", "SameSite=Lax", "Secure"],
  );
  const firstToken = visitor.browser.cookies.get(SESSION)!;
  assert.notEqual(firstToken, planted.token);
  assert.equal(await service.dashboard.sessions.resume(planted.token), null, "the planted session ended");
  // Signing in again from the signed-in browser: another id, and the first one ends.
  const csrf = await homeCsrf(visitor.browser, fetcher);
  assert.notEqual(csrf, visitor.csrf, "the CSRF token changes at sign-in");
  const second = await signInWithPasskey(fetcher, passkey, { browser: visitor.browser, csrf });
  assert.equal(second.response.status, 200);
  const secondToken = visitor.browser.cookies.get(SESSION)!;
  assert.notEqual(secondToken.split(".")[0], firstToken.split(".")[0]);
  assert.equal(await service.dashboard.sessions.resume(firstToken), null);
  assert.equal((await service.dashboard.sessions.resume(secondToken))?.member.id, memberId);
});

Deno.test("a sign-in answer replayed, sent after 5 minutes or from another browser is refused as a challenge", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const { passkey } = await memberWithPasskey(service, orgId, "owner");
  const fetcher = fromAddress(service, "198.51.100.2");
  const refusal = async (answer: Response) => {
    assert.equal(answer.status, 401);
    return (await answer.json()).error.details.refused;
  };
  // Replay: the accepted answer, sent again by the same browser.
  const { browser, csrf } = await signInVisitor(fetcher);
  const challenge = await signInChallenge(browser, fetcher, csrf);
  const answer = await passkey.answer(challenge, ORIGIN);
  assert.equal((await sendSignIn(browser, fetcher, csrf, answer)).status, 200);
  const replayer = await signInVisitor(fetcher);
  assert.equal(
    await refusal(await sendSignIn(replayer.browser, fetcher, replayer.csrf, answer)),
    "challenge",
  );
  // Late: answered just after 5 minutes.
  const late = await signInVisitor(fetcher);
  const lateChallenge = await signInChallenge(late.browser, fetcher, late.csrf);
  service.clock.advance(CHALLENGE_TTL_MS + 1);
  const lateAnswer = await passkey.answer(lateChallenge, ORIGIN);
  assert.equal(await refusal(await sendSignIn(late.browser, fetcher, late.csrf, lateAnswer)), "challenge");
  // Another browser: a challenge issued to one browser, answered from another.
  const asked = await signInVisitor(fetcher);
  const other = await signInVisitor(fetcher);
  const stolen = await passkey.answer(await signInChallenge(asked.browser, fetcher, asked.csrf), ORIGIN);
  assert.equal(await refusal(await sendSignIn(other.browser, fetcher, other.csrf, stolen)), "challenge");
});

Deno.test("an invitation used once opens nothing after: its page 404, its registration options 401, a second acceptance refused", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const invited =
    await (await service.request(`/admin/v1/orgs/${orgId}/invitations`, adminInit("POST", { role: "owner" })))
      .json();
  const path = new URL(invited.link).pathname;
  const token = path.split("/").at(-1)!;
  const fetcher = fromAddress(service, "198.51.100.3");
  const browser = new TestBrowser();
  const page = await (await browser.fetch(fetcher, path, { headers: { accept: "text/html" } })).text();
  const csrf = /data-csrf="([^"]+)"/.exec(page)![1]!;
  // Used up, as the registration step does (the actor's accept, the same one the endpoint calls).
  const invitation = (await openInvitation(service.storage.members, token, service.clock.now()))!;
  await service.dashboard.askMembership(orgId, {
    type: "accept",
    invitationId: invitation.id,
    secret: parseSecretToken(token)!.secret,
    displayName: "Owner",
    credential: credentialOf("cred_used", service.clock.now()),
  });
  const again = await browser.fetch(fetcher, path, { headers: { accept: "text/html" } });
  assert.equal(again.status, 404);
  const options = await postJson(
    browser,
    fetcher,
    csrf,
    `/dashboard/passkeys/register/options?invitation=${token}`,
    {},
  );
  assert.equal(options.status, 401);
  // A second acceptance through the actor is refused too, and the organisation has one member.
  await assert.rejects(
    service.dashboard.askMembership(orgId, {
      type: "accept",
      invitationId: invitation.id,
      secret: parseSecretToken(token)!.secret,
      displayName: "Owner",
      credential: credentialOf("cred_again", service.clock.now()),
    }),
  );
  const members = await (await service.request(`/admin/v1/orgs/${orgId}/members`, adminInit("GET"))).json();
  assert.equal(members.members.length, 1);
});

Deno.test("the service's identity_purge job deletes the sessions and challenges the endpoints made once they end", async () => {
  for (const runJob of [true, false]) {
    await using service = await openTestService({ env: ON });
    const orgId = await createOrg(service.request);
    const { passkey } = await memberWithPasskey(service, orgId, "owner");
    const fetcher = fromAddress(service, "198.51.100.4");
    const { browser } = await signInWithPasskey(fetcher, passkey);
    const sessionId = browser.cookies.get(SESSION)!.split(".")[0]!;
    const waiting = await signInVisitor(fetcher);
    await signInChallenge(waiting.browser, fetcher, waiting.csrf);
    service.clock.advance(SESSION_IDLE_MS + 1);
    assert.notEqual(
      await service.storage.sessions.find(sessionId),
      null,
      "an ended session stays until purged",
    );
    if (runJob) {
      assert.equal(service.dashboard.purgeJob.name, "identity_purge");
      await runJobOnce(service.dashboard.purgeJob, {
        leases: service.storage.jobLeases,
        nowMs: service.clock.now(),
      });
      assert.equal(await service.storage.sessions.find(sessionId), null);
    }
    // What is left to purge: nothing after the job; without it, the session and the challenges.
    const left = await service.storage.sessions.purgeExpired(service.clock.now());
    if (runJob) assert.deepEqual(left, { sessions: 0, challenges: 0 });
    else assert.ok(left.sessions >= 1 && left.challenges >= 1, JSON.stringify(left));
  }
});
