/**
 * Hotkey sign-in and link proofs, signed by polkadot-js's keyring the way browser extensions sign
 * (polkadot{.js} and Talisman wrap raw bytes in `<Bytes>…</Bytes>` before signing), raw as
 * bittensor's `Keypair.sign` does, and by `deno task sign --message`.
 */
import assert from "node:assert/strict";
import {
  HotkeyCeremony,
  HotkeyProof,
  linkMessage,
  publicOriginOf,
  signInMessage,
} from "../../actors/ceremony/mod.ts";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { loadSr25519Verify, scureSr25519Verify } from "../../actors/validators/mod.ts";
import { runSign } from "../../scripts/sign/sign.ts";
import { refusalOf } from "../support/ceremony.ts";
import { MemoryChallengeStore } from "../support/memory_challenge_store.ts";
import { addressWithPrefix, polkadotSigner } from "../support/polkadot/polkadot_signer.ts";

const alice = polkadotSigner("//Alice");
const bob = polkadotSigner("//Bob");
const ORIGIN = "http://localhost:8123";
const ORG = "org_01JD4Z7M9Q";

function world(verify = scureSr25519Verify) {
  const clock = new ManualClock();
  const challenges = new MemoryChallengeStore();
  const ceremony = new HotkeyCeremony({
    origin: publicOriginOf(ORIGIN),
    challenges,
    clock: clock.now,
    verify,
  });
  return { ceremony, clock };
}

function proof(hotkey: string, challenge: string, signature: string): HotkeyProof {
  return HotkeyProof.parse({ hotkey, challenge, signature });
}

Deno.test("a sign-in signed raw or <Bytes>-wrapped verifies, by either sr25519 build", async () => {
  for (const verify of [scureSr25519Verify, await loadSr25519Verify()]) {
    const { ceremony } = world(verify);
    for (const [sign, wrapped] of [["rawSign", false], ["extensionSign", true]] as const) {
      const challenge = await ceremony.signInChallenge("browser-a");
      const message = signInMessage({ origin: ORIGIN, challenge, hotkey: alice.address });
      const verified = await ceremony.verifySignIn(
        "browser-a",
        proof(alice.address, challenge, alice[sign](message)),
      );
      assert.deepEqual(verified, { hotkey: alice.address, wrapped });
    }
  }
});

Deno.test("a link signed raw or <Bytes>-wrapped verifies for its organisation", async () => {
  const { ceremony } = world();
  for (const [sign, wrapped] of [["rawSign", false], ["extensionSign", true]] as const) {
    const challenge = await ceremony.linkChallenge("browser-a", ORG);
    const message = linkMessage({ origin: ORIGIN, orgId: ORG, challenge, hotkey: alice.address });
    const verified = await ceremony.verifyLink(
      "browser-a",
      proof(alice.address, challenge, alice[sign](message)),
      { orgId: ORG },
    );
    assert.deepEqual(verified, { hotkey: alice.address, wrapped });
  }
});

Deno.test("the messages are the documented lines, without a trailing newline", () => {
  const parts = { origin: ORIGIN, challenge: "c".repeat(43), hotkey: alice.address };
  assert.equal(
    signInMessage(parts),
    `forecasting-gateway/signin/v1\n${ORIGIN}\n${"c".repeat(43)}\n${alice.address}`,
  );
  assert.equal(
    linkMessage({ ...parts, orgId: ORG }),
    `forecasting-gateway/link/v1\n${ORIGIN}\n${ORG}\n${"c".repeat(43)}\n${alice.address}`,
  );
});

Deno.test("a sign-in signed for another origin is refused", async () => {
  const { ceremony } = world();
  const challenge = await ceremony.signInChallenge("browser-a");
  const message = signInMessage({ origin: "http://localhost:9999", challenge, hotkey: alice.address });
  const refused = ceremony.verifySignIn(
    "browser-a",
    proof(alice.address, challenge, alice.extensionSign(message)),
  );
  assert.equal(await refusalOf(refused), "signature");
});

Deno.test("a link signed for another organisation, or sent for one the challenge was not issued to, is refused", async () => {
  const { ceremony } = world();
  const challenge = await ceremony.linkChallenge("browser-a", ORG);
  const otherOrg = linkMessage({ origin: ORIGIN, orgId: "org_other", challenge, hotkey: alice.address });
  const signedOther = proof(alice.address, challenge, alice.extensionSign(otherOrg));
  assert.equal(await refusalOf(ceremony.verifyLink("browser-a", signedOther, { orgId: ORG })), "signature");

  const second = await ceremony.linkChallenge("browser-a", ORG);
  const forOther = linkMessage({
    origin: ORIGIN,
    orgId: "org_other",
    challenge: second,
    hotkey: alice.address,
  });
  const sentOther = proof(alice.address, second, alice.extensionSign(forOther));
  assert.equal(
    await refusalOf(ceremony.verifyLink("browser-a", sentOther, { orgId: "org_other" })),
    "challenge",
  );
});

Deno.test("a signature over another challenge than the one sent, or a challenge never issued, is refused", async () => {
  const { ceremony } = world();
  const signed = await ceremony.signInChallenge("browser-a");
  const sent = await ceremony.signInChallenge("browser-a");
  const message = signInMessage({ origin: ORIGIN, challenge: signed, hotkey: alice.address });
  const swapped = proof(alice.address, sent, alice.extensionSign(message));
  assert.equal(await refusalOf(ceremony.verifySignIn("browser-a", swapped)), "signature");

  const never = "N".repeat(43);
  const forged = signInMessage({ origin: ORIGIN, challenge: never, hotkey: alice.address });
  const unissued = proof(alice.address, never, alice.extensionSign(forged));
  assert.equal(await refusalOf(ceremony.verifySignIn("browser-a", unissued)), "challenge");
});

Deno.test("a sign-in challenge answers once, for the browser session that asked, within 5 minutes", async () => {
  const { ceremony, clock } = world();
  const sign = async (browser: string) => {
    const challenge = await ceremony.signInChallenge("browser-a");
    const message = signInMessage({ origin: ORIGIN, challenge, hotkey: alice.address });
    return { browser, answer: proof(alice.address, challenge, alice.extensionSign(message)) };
  };
  const once = await sign("browser-a");
  await ceremony.verifySignIn(once.browser, once.answer);
  assert.equal(await refusalOf(ceremony.verifySignIn(once.browser, once.answer)), "challenge");
  const elsewhere = await sign("browser-b");
  assert.equal(await refusalOf(ceremony.verifySignIn(elsewhere.browser, elsewhere.answer)), "challenge");
  const late = await sign("browser-a");
  clock.advance(5 * 60_000 + 1);
  assert.equal(await refusalOf(ceremony.verifySignIn(late.browser, late.answer)), "challenge");
});

Deno.test("a signature by another hotkey than the one named is refused", async () => {
  const { ceremony } = world();
  const challenge = await ceremony.signInChallenge("browser-a");
  const message = signInMessage({ origin: ORIGIN, challenge, hotkey: alice.address });
  const byBob = proof(alice.address, challenge, bob.extensionSign(message));
  assert.equal(await refusalOf(ceremony.verifySignIn("browser-a", byBob)), "signature");
});

Deno.test("a sign-in signature does not link, though made over the same challenge", async () => {
  const { ceremony } = world();
  const challenge = await ceremony.linkChallenge("browser-a", ORG);
  const signIn = signInMessage({ origin: ORIGIN, challenge, hotkey: alice.address });
  const refused = ceremony.verifyLink(
    "browser-a",
    proof(alice.address, challenge, alice.extensionSign(signIn)),
    { orgId: ORG },
  );
  assert.equal(await refusalOf(refused), "signature");
});

Deno.test("a malformed proof is refused field by field", () => {
  const base = { hotkey: alice.address, challenge: "c".repeat(43), signature: `0x${"ab".repeat(64)}` };
  assert.ok(HotkeyProof.safeParse(base).success);
  assert.ok(HotkeyProof.safeParse({ ...base, signature: "AB".repeat(64) }).success);
  const bad: [Partial<HotkeyProof>, string][] = [
    [{ signature: "0x" + "ab".repeat(63) }, "signature"],
    [{ signature: "0x" + "zz".repeat(64) }, "signature"],
    [{ signature: "" }, "signature"],
    [{ hotkey: "5notAnAddress" }, "hotkey"],
    [{ hotkey: addressWithPrefix(alice.publicKey, 0) }, "hotkey"],
    [{ challenge: "short" }, "challenge"],
  ];
  for (const [change, field] of bad) {
    const result = HotkeyProof.safeParse({ ...base, ...change });
    assert.ok(!result.success, JSON.stringify(change));
    assert.deepEqual(result.error.issues.map((issue) => issue.path.join(".")), [field]);
  }
});

Deno.test("a signature pasted from deno task sign --message signs in", async () => {
  const { ceremony } = world();
  const seed = "11".repeat(32);
  const hotkey = "5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi";
  const challenge = await ceremony.signInChallenge("browser-a");
  const out: string[] = [];
  const code = await runSign(["--message", signInMessage({ origin: ORIGIN, challenge, hotkey })], {
    env: { FGW_SIGNING_SECRET: seed },
    out: (text) => out.push(text),
    err: (text) => out.push(text),
    nowMs: () => 0,
    readFile: () => Promise.reject(new Error("no files")),
  });
  assert.equal(code, 0, out.join("\n"));
  const verified = await ceremony.verifySignIn("browser-a", proof(hotkey, challenge, `${out[0]}\n`));
  assert.deepEqual(verified, { hotkey, wrapped: false });
});
