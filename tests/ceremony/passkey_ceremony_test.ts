/**
 * The passkey ceremony's refusals that need no authenticator (a real browser's answers are in
 * tests/browser/passkey_ceremony_test.ts): each answer carries an issued challenge and differs
 * from an acceptable one in one respect.
 */
import assert from "node:assert/strict";
import { base64urlnopad } from "@scure/base";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import {
  type AuthenticationResponse,
  PasskeyCeremony,
  publicOriginOf,
  type RegistrationResponse,
  type StoredPasskey,
} from "../../actors/ceremony/mod.ts";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { refusalOf } from "../support/ceremony.ts";
import { MemoryChallengeStore } from "../support/memory_challenge_store.ts";

const ORIGIN = "https://gateway.example";
const user = { handle: "mem_1", name: "ada@example.org", displayName: "Ada" };
const text = (value: string) => base64urlnopad.encode(utf8ToBytes(value));

function world() {
  const clock = new ManualClock();
  const ceremony = new PasskeyCeremony({
    origin: publicOriginOf(ORIGIN),
    rpName: "Forecasting Gateway",
    challenges: new MemoryChallengeStore(),
    clock: clock.now,
  });
  return { ceremony, clock };
}

function clientData(type: string, challenge: string, origin = ORIGIN): string {
  return text(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

function registration(challenge: string, origin = ORIGIN): RegistrationResponse {
  return {
    id: "AQID",
    rawId: "AQID",
    type: "public-key",
    response: { clientDataJSON: clientData("webauthn.create", challenge, origin), attestationObject: "oA" },
    clientExtensionResults: {},
  };
}

function assertion(challenge: string, userHandle = text(user.handle)): AuthenticationResponse {
  return {
    id: "AQID",
    rawId: "AQID",
    type: "public-key",
    response: {
      clientDataJSON: clientData("webauthn.get", challenge),
      authenticatorData: "AAAA",
      signature: "AAAA",
      userHandle,
    },
    clientExtensionResults: {},
  };
}

const stored: StoredPasskey = {
  credential: { id: "AQID", publicKey: new Uint8Array(77), counter: 0, transports: ["internal"] },
  userHandle: user.handle,
};

Deno.test("an answer made for another origin is refused, and its challenge is used up", async () => {
  const { ceremony } = world();
  const { challenge } = await ceremony.registrationOptions("browser-a", user);
  const foreign = registration(challenge, "https://gateway.example.evil");
  assert.equal(
    await refusalOf(ceremony.verifyRegistration("browser-a", foreign, { userHandle: user.handle })),
    "origin",
  );
  const retry = ceremony.verifyRegistration("browser-a", registration(challenge), {
    userHandle: user.handle,
  });
  assert.equal(await refusalOf(retry), "challenge");
});

Deno.test("a registration for another user than the challenge's is refused", async () => {
  const { ceremony } = world();
  const { challenge } = await ceremony.registrationOptions("browser-a", user);
  const refused = ceremony.verifyRegistration("browser-a", registration(challenge), { userHandle: "mem_2" });
  assert.equal(await refusalOf(refused), "challenge");
});

Deno.test("an attestation that does not decode is refused as a response", async () => {
  const { ceremony } = world();
  const { challenge } = await ceremony.registrationOptions("browser-a", user);
  const refused = ceremony.verifyRegistration("browser-a", registration(challenge), {
    userHandle: user.handle,
  });
  assert.equal(await refusalOf(refused), "response");
});

Deno.test("client data that is not JSON is refused as a response", async () => {
  const { ceremony } = world();
  const garbled = { ...registration("x"), response: { clientDataJSON: text("{"), attestationObject: "oA" } };
  assert.equal(
    await refusalOf(ceremony.verifyRegistration("browser-a", garbled, { userHandle: user.handle })),
    "response",
  );
});

Deno.test("a sign-in with a passkey not registered here, or naming another user, is refused", async () => {
  const { ceremony } = world();
  const unknown = await ceremony.signInOptions("browser-a");
  const none = () => Promise.resolve(null);
  assert.equal(
    await refusalOf(ceremony.verifySignIn("browser-a", assertion(unknown.challenge), { find: none })),
    "passkey",
  );
  const other = await ceremony.signInOptions("browser-a");
  const find = () => Promise.resolve(stored);
  const named = assertion(other.challenge, text("mem_2"));
  assert.equal(await refusalOf(ceremony.verifySignIn("browser-a", named, { find: find })), "passkey");
});

Deno.test("a sign-in whose signature does not verify is refused as a response", async () => {
  const { ceremony } = world();
  const { challenge } = await ceremony.signInOptions("browser-a");
  const refused = ceremony.verifySignIn("browser-a", assertion(challenge), {
    find: () => Promise.resolve(stored),
  });
  assert.equal(await refusalOf(refused), "response");
});

Deno.test("a sign-in answer from another browser session than the one that asked is refused", async () => {
  const { ceremony } = world();
  const { challenge } = await ceremony.signInOptions("browser-a");
  const refused = ceremony.verifySignIn("browser-b", assertion(challenge), {
    find: () => Promise.resolve(stored),
  });
  assert.equal(await refusalOf(refused), "challenge");
});
