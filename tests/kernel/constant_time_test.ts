import assert from "node:assert/strict";
import { digestMatches, sameBytes, sameText, sha256Text } from "../../actors/kernel/mod.ts";

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

Deno.test("sameBytes is true only for the same bytes, whatever bit of whichever byte differs", () => {
  const mac = Uint8Array.from({ length: 16 }, (_, i) => i * 17);
  assert.equal(sameBytes(mac, mac.slice()), true);
  for (let at = 0; at < mac.length; at++) {
    for (let bit = 0; bit < 8; bit++) {
      const other = mac.slice();
      other[at]! ^= 1 << bit;
      assert.equal(sameBytes(mac, other), false, `byte ${at}, bit ${bit}`);
    }
  }
  assert.equal(sameBytes(mac, mac.subarray(0, 15)), false);
  assert.equal(sameBytes(new Uint8Array(0), new Uint8Array(0)), true);
});
