import assert from "node:assert/strict";
import { base64urlnopad } from "@scure/base";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import {
  CHALLENGE_TTL_MS,
  PasskeyCeremony,
  publicOriginOf,
  redeemChallenge,
  registrationOptions,
} from "../../actors/ceremony/mod.ts";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { refusalOf } from "../support/ceremony.ts";
import { MemoryChallengeStore } from "../support/memory_challenge_store.ts";

const origin = publicOriginOf("https://gateway.example");
const user = { handle: "mem_01JD4Z7M9Q", name: "ada@example.org", displayName: "Ada" };

function world() {
  const challenges = new MemoryChallengeStore();
  const clock = new ManualClock();
  const ceremony = new PasskeyCeremony({
    origin,
    rpName: "Forecasting Gateway",
    challenges,
    clock: clock.now,
  });
  return { challenges, clock, ceremony };
}

Deno.test("registration asks for a discoverable, user-verified passkey without attestation, for the public origin", async () => {
  const { ceremony } = world();
  const options = await ceremony.registrationOptions("browser-a", user, { excludeCredentialIds: ["AAAA"] });
  assert.deepEqual(options.rp, { name: "Forecasting Gateway", id: "gateway.example" });
  assert.deepEqual(options.authenticatorSelection, {
    residentKey: "required",
    requireResidentKey: true,
    userVerification: "required",
  });
  assert.equal(options.attestation, "none");
  assert.equal(options.user.id, base64urlnopad.encode(utf8ToBytes(user.handle)));
  assert.equal(options.user.name, user.name);
  assert.equal(options.user.displayName, user.displayName);
  assert.equal(options.timeout, CHALLENGE_TTL_MS);
  assert.deepEqual(options.pubKeyCredParams.map((param) => param.alg), [-8, -7, -257]);
  assert.deepEqual(options.excludeCredentials?.map((credential) => credential.id), ["AAAA"]);
});

Deno.test("the registration challenge is the one issued: bound to the browser session and the user", async () => {
  const { ceremony, challenges, clock } = world();
  const options = await ceremony.registrationOptions("browser-a", user);
  assert.match(options.challenge, /^[A-Za-z0-9_-]{43}$/);
  const scope = { purpose: "passkey_registration", browser: "browser-a", nowMs: clock.now() } as const;
  const otherUser = redeemChallenge(challenges, options.challenge, { ...scope, subject: "mem_other" });
  assert.equal(await refusalOf(otherUser), "challenge");
  const again = await ceremony.registrationOptions("browser-a", user);
  await redeemChallenge(challenges, again.challenge, { ...scope, subject: user.handle });
});

Deno.test("sign-in asks for a discoverable passkey: no allowCredentials, user verification required", async () => {
  const { ceremony, challenges, clock } = world();
  const options = JSON.parse(JSON.stringify(await ceremony.signInOptions("browser-a")));
  assert.equal(options.rpId, "gateway.example");
  assert.equal(options.userVerification, "required");
  assert.equal(options.timeout, CHALLENGE_TTL_MS);
  assert.ok(!("allowCredentials" in options), JSON.stringify(options));
  await redeemChallenge(challenges, options.challenge, {
    purpose: "passkey_sign_in",
    browser: "browser-a",
    nowMs: clock.now(),
  });
});

Deno.test("a user handle must be 1 to 64 bytes", async () => {
  for (const handle of ["", "m".repeat(65)]) {
    await assert.rejects(
      registrationOptions(origin, { rpName: "x", user: { ...user, handle }, challenge: "A".repeat(43) }),
      RangeError,
    );
  }
});

Deno.test("the relying party id is the configured host name, without its port", async () => {
  const local = publicOriginOf("http://localhost:8123");
  const options = await registrationOptions(local, { rpName: "x", user, challenge: "A".repeat(43) });
  assert.equal(options.rp.id, "localhost");
});
