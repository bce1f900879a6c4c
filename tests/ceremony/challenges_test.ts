import assert from "node:assert/strict";
import { CHALLENGE_TTL_MS, issueChallenge, redeemChallenge } from "../../actors/ceremony/mod.ts";
import { refusalOf } from "../support/ceremony.ts";
import { MemoryChallengeStore } from "../support/memory_challenge_store.ts";

const NOW = Date.UTC(2026, 0, 1);
const scope = { purpose: "passkey_sign_in", browser: "browser-a", nowMs: NOW } as const;

Deno.test("a challenge is 32 random bytes of base64url, stored only as hashes", async () => {
  const store = new MemoryChallengeStore();
  const challenge = await issueChallenge(store, scope);
  assert.match(challenge, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(challenge, await issueChallenge(store, scope));
  const dump = JSON.stringify(store.stored());
  assert.ok(!dump.includes(challenge) && !dump.includes("browser-a"), dump);
  assert.equal(store.stored()[0]?.expiresAtMs, NOW + CHALLENGE_TTL_MS);
});

Deno.test("a challenge answers once", async () => {
  const store = new MemoryChallengeStore();
  const challenge = await issueChallenge(store, scope);
  await redeemChallenge(store, challenge, scope);
  assert.equal(await refusalOf(redeemChallenge(store, challenge, scope)), "challenge");
});

Deno.test("a challenge answers until 5 minutes after its issue, not a millisecond later", async () => {
  const store = new MemoryChallengeStore();
  const onTime = await issueChallenge(store, scope);
  await redeemChallenge(store, onTime, { ...scope, nowMs: NOW + CHALLENGE_TTL_MS });
  const late = await issueChallenge(store, scope);
  const refused = redeemChallenge(store, late, { ...scope, nowMs: NOW + CHALLENGE_TTL_MS + 1 });
  assert.equal(await refusalOf(refused), "challenge");
});

Deno.test("a challenge answers only its browser session, purpose and subject, and is used up by a wrong one", async () => {
  const store = new MemoryChallengeStore();
  const wrongs = [
    { ...scope, browser: "browser-b" },
    { ...scope, purpose: "hotkey_sign_in" as const },
    { ...scope, subject: "org_1" },
  ];
  for (const wrong of wrongs) {
    const challenge = await issueChallenge(store, scope);
    assert.equal(await refusalOf(redeemChallenge(store, challenge, wrong)), "challenge");
    assert.equal(await refusalOf(redeemChallenge(store, challenge, scope)), "challenge");
  }
});

Deno.test("a challenge never issued, or not shaped like one, is refused", async () => {
  const store = new MemoryChallengeStore();
  const never = "A".repeat(43);
  assert.equal(await refusalOf(redeemChallenge(store, never, scope)), "challenge");
  assert.equal(await refusalOf(redeemChallenge(store, "short", scope)), "challenge");
});
