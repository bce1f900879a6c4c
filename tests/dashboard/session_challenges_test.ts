import assert from "node:assert/strict";
import { issueChallenge, redeemChallenge } from "../../actors/ceremony/mod.ts";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { sessionChallengeStore } from "../../routes/dashboard/wiring/session_challenges.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";

const NOW = Date.UTC(2026, 10, 20, 12);

async function refused(promise: Promise<void>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as { details?: { refused?: string } }).details?.refused;
  }
}

Deno.test("challenges kept in the session store answer once, their browser, ceremony and subject, for 5 minutes", async () => {
  const storage = await openKvStorage(":memory:");
  try {
    const clock = new ManualClock(NOW);
    const expected = { browser: "browser-a", purpose: "passkey_registration" as const, subject: "mbr_1" };
    const store = sessionChallengeStore(storage.sessions, clock.now, () => Promise.resolve(expected));
    const scope = { ...expected, nowMs: NOW };
    const issue = () => issueChallenge(store, scope);

    const first = await issue();
    await redeemChallenge(store, first, scope);
    assert.equal(await refused(redeemChallenge(store, first, scope)), "challenge", "a replay");

    const other = await issue();
    const otherBrowser = sessionChallengeStore(
      storage.sessions,
      clock.now,
      () => Promise.resolve({ ...expected, browser: "browser-b" }),
    );
    assert.equal(
      await refused(redeemChallenge(otherBrowser, other, { ...scope, browser: "browser-b" })),
      "challenge",
    );
    const otherSubject = sessionChallengeStore(
      storage.sessions,
      clock.now,
      () => Promise.resolve({ ...expected, subject: "mbr_2" }),
    );
    assert.equal(
      await refused(redeemChallenge(otherSubject, other, { ...scope, subject: "mbr_2" })),
      "challenge",
    );
    const signIn = sessionChallengeStore(
      storage.sessions,
      clock.now,
      () => Promise.resolve({ ...expected, purpose: "passkey_sign_in", subject: "" }),
    );
    assert.equal(
      await refused(redeemChallenge(signIn, other, { ...scope, purpose: "passkey_sign_in", subject: "" })),
      "challenge",
    );
    // Refused elsewhere, it is still there for its own browser.
    await redeemChallenge(store, other, scope);

    const late = await issue();
    clock.advance(5 * 60_000 + 1);
    assert.equal(await refused(redeemChallenge(store, late, { ...scope, nowMs: clock.now() })), "challenge");
  } finally {
    await storage.close();
  }
});
