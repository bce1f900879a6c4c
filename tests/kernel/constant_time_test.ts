import assert from "node:assert/strict";
import { digestMatches, sameText, sha256Text } from "../../actors/kernel/mod.ts";

Deno.test("sameText is true only for equal strings, whatever position differs", () => {
  const secret = "A".repeat(43);
  assert.equal(sameText(secret, "A".repeat(43)), true);
  for (const at of [0, 21, 42]) {
    const other = secret.slice(0, at) + "B" + secret.slice(at + 1);
    assert.equal(sameText(secret, other), false, `differs at ${at}`);
  }
  assert.equal(sameText(secret, secret.slice(1)), false);
  assert.equal(sameText("", ""), true);
  assert.equal(sameText("é", "e"), false);
});

Deno.test("digestMatches compares the SHA-256 of a text with a digest", () => {
  const digest = sha256Text("fgw secret");
  assert.equal(
    Array.from(sha256Text("abc"), (b) => b.toString(16).padStart(2, "0")).join(""),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal(digestMatches("fgw secret", digest), true);
  assert.equal(digestMatches("fgw secreT", digest), false);
  assert.equal(digestMatches("fgw secret", digest.slice(1)), false);
});
