/**
 * The passkey ceremonies in Chromium, with its virtual authenticator: registering a discoverable
 * passkey, signing in with it without a user name, and the answers the server refuses — tampered,
 * replayed, late, with a counter that did not grow, and made on another origin.
 */
import assert from "node:assert/strict";
import type { Page, Request } from "playwright-core";
import { CHALLENGE_TTL_MS } from "../../actors/ceremony/mod.ts";
import { PASSKEY_PATHS } from "../../routes/dashboard/ceremony/passkey_routes.ts";
import { browserTest } from "../support/browser/browser_host.ts";
import { visitPage } from "../support/browser/page_visit.ts";
import { ADA, openPasskeySite } from "../support/browser/passkey_site.ts";
import { addVirtualAuthenticator } from "../support/browser/virtual_authenticator.ts";

const SIGN_IN = `/dashboard${PASSKEY_PATHS.signIn}`;

/** Clicks the sign-in button and answers the server's answer to the browser's assertion. */
async function signInAnswer(
  page: Page,
): Promise<{ status: number; body: { error?: { details?: unknown } } }> {
  const answer = page.waitForResponse((response) => new URL(response.url()).pathname === SIGN_IN);
  await page.click("#sign-in");
  const response = await answer;
  return { status: response.status(), body: await response.json() };
}

/** Signs in and waits for the page it leads to. */
async function signIn(page: Page): Promise<Request> {
  const request = page.waitForRequest((sent) => new URL(sent.url()).pathname === SIGN_IN);
  await page.click("#sign-in");
  await page.waitForURL("**/signed-in");
  return await request;
}

browserTest(
  "a passkey is registered, signs in without a user name, and refused answers stay refused",
  async ({ browser, t }) => {
    await using site = openPasskeySite();
    await using visit = await visitPage(browser, { base: site.base, path: "/" });
    const { page } = visit;
    const authenticator = await addVirtualAuthenticator(page);
    const base = new URL(site.base);

    await t.step("registering stores a discoverable passkey for the member", async () => {
      await page.click("#register");
      await page.locator("#status", { hasText: "Passkey registered." }).waitFor();
      const [stored] = [...site.passkeys.values()];
      assert.equal(site.passkeys.size, 1);
      assert.equal(stored?.userHandle, ADA.handle);
      assert.deepEqual(stored?.credential.transports, ["internal"]);
      const [credential] = await authenticator.credentials();
      assert.equal(credential?.isResidentCredential, true);
      assert.equal(credential?.rpId, base.hostname);
      assert.equal(
        credential?.credentialId.replace(/=+$/, "").replaceAll("+", "-").replaceAll("/", "_"),
        stored?.credential.id,
      );
    });

    let replayable = "";
    await t.step("signing in needs no user name and leads on as the member", async () => {
      await page.goto(site.base);
      const request = await signIn(page);
      assert.match(await page.locator("h1").innerText(), new RegExp(`Signed in as ${ADA.handle}`));
      assert.equal(site.signIns.length, 1);
      assert.ok((site.signIns[0]?.newCounter ?? 0) > 0, "the counter grew");
      replayable = request.postData() ?? "";
      assert.deepEqual(visit.problems(), [], "no console error, failed request or error status");
    });

    await t.step("the same answer sent again is refused: its challenge is used", async () => {
      const replay = await page.evaluate(async ({ path, body }) => {
        const answer = await fetch(path, {
          method: "POST",
          headers: { "content-type": "application/json", "x-csrf-token": "csrf-token-of-the-test-page" },
          body,
        });
        return { status: answer.status, body: await answer.json() };
      }, { path: SIGN_IN, body: replayable });
      assert.equal(replay.status, 401);
      assert.equal(replay.body.error.details.refused, "challenge");
    });

    await page.goto(site.base);
    await t.step("a tampered answer is refused", async () => {
      await page.route(`**${SIGN_IN}`, (route) => {
        const body = JSON.parse(route.request().postData() ?? "{}");
        const signature: string = body.response.response.signature;
        body.response.response.signature = signature.slice(0, 10) + (signature[10] === "A" ? "B" : "A") +
          signature.slice(11);
        return route.continue({ postData: JSON.stringify(body) });
      });
      const answer = await signInAnswer(page);
      assert.equal(answer.status, 401);
      assert.deepEqual(answer.body.error?.details, { refused: "response" });
      await page.locator("#status", { hasText: "Passkey response does not verify" }).waitFor();
      await page.unrouteAll();
    });

    await t.step("an answer sent more than 5 minutes after its options is refused", async () => {
      await page.route(`**${SIGN_IN}`, (route) => {
        site.clock.advance(CHALLENGE_TTL_MS + 1);
        return route.continue();
      });
      const answer = await signInAnswer(page);
      assert.equal(answer.status, 401);
      assert.deepEqual(answer.body.error?.details, { refused: "challenge" });
      await page.unrouteAll();
    });

    await t.step("an answer whose counter did not grow past the stored one is refused", async () => {
      const [stored] = [...site.passkeys.values()];
      const counter = stored!.credential.counter;
      stored!.credential.counter = counter + 1_000;
      const answer = await signInAnswer(page);
      assert.equal(answer.status, 401);
      assert.deepEqual(answer.body.error?.details, { refused: "response" });
      stored!.credential.counter = counter;
      await page.goto(site.base);
      await signIn(page);
      assert.equal(site.signIns.length, 2, "the same passkey signs in once the counter is right");
    });

    const refusals = visit.problems().filter((problem) => !problem.includes("401"));
    assert.deepEqual(refusals, [], "no problem but the refusals' 401s");
  },
);

browserTest(
  "an answer made on another origin than the configured public URL is refused",
  async ({ browser }) => {
    await using home = openPasskeySite();
    // The same passkeys, served on another port while configured for `home`'s origin.
    await using elsewhere = openPasskeySite({ publicUrl: home.base, passkeys: home.passkeys });
    await using atHome = await visitPage(browser, { base: home.base, path: "/" });
    const homeAuthenticator = await addVirtualAuthenticator(atHome.page);
    await atHome.page.click("#register");
    await atHome.page.locator("#status", { hasText: "Passkey registered." }).waitFor();

    await using away = await visitPage(browser, { base: elsewhere.base, path: "/" });
    const awayAuthenticator = await addVirtualAuthenticator(away.page);
    for (const credential of await homeAuthenticator.credentials()) await awayAuthenticator.add(credential);
    const answer = await signInAnswer(away.page);
    assert.equal(answer.status, 401);
    assert.deepEqual(answer.body.error?.details, { refused: "origin" });
    assert.equal(elsewhere.signIns.length + home.signIns.length, 0);
  },
);
