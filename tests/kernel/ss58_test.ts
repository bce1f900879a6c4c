import assert from "node:assert/strict";
import { base58, hex } from "@scure/base";
import { blake2b } from "@noble/hashes/blake2.js";
import { concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import {
  BITTENSOR_SS58_PREFIX,
  bittensorPublicKey,
  decodeSs58,
  encodeSs58,
  isSs58Address,
  ss58PublicKey,
} from "../../actors/kernel/mod.ts";

const ALICE_KEY = "d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d";

/** SS58 encoding written from the format description (independent of the decoder under test). */
function encode(prefix: number, publicKey: Uint8Array): string {
  const prefixBytes = prefix < 64
    ? Uint8Array.of(prefix)
    : Uint8Array.of(((prefix & 0b1111_1100) >> 2) | 0b0100_0000, (prefix >> 8) | ((prefix & 0b11) << 6));
  const body = concatBytes(prefixBytes, publicKey);
  const checksum = blake2b(concatBytes(utf8ToBytes("SS58PRE"), body), { dkLen: 64 }).subarray(0, 2);
  return base58.encode(concatBytes(body, checksum));
}

Deno.test("ss58 decodes known addresses on any network prefix to their public key", () => {
  const known: [string, number, string][] = [
    ["5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY", 42, ALICE_KEY],
    ["15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5", 0, ALICE_KEY],
    ["HNZata7iMYWmk5RvZRTiAsSDhV8366zq2YGb3tLH5Upf74F", 2, ALICE_KEY],
    [
      "5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi",
      42,
      "50780547322a1ceba67ea8c552c9bc6c686f8698ac9a8cafab7cd15a1db19859",
    ],
  ];
  for (const [address, prefix, key] of known) {
    assert.equal(decodeSs58(address)?.prefix, prefix, address);
    assert.equal(hex.encode(ss58PublicKey(address)), key);
  }
});

Deno.test("ss58 decodes two-byte network prefixes", () => {
  const key = hex.decode(ALICE_KEY);
  for (const prefix of [64, 255, 1284, 16383]) {
    const decoded = decodeSs58(encode(prefix, key));
    assert.equal(decoded?.prefix, prefix);
    assert.deepEqual(decoded?.publicKey, key);
  }
});

Deno.test("ss58 accepts as a hotkey address only Bittensor's network prefix 42", () => {
  const key = hex.decode(ALICE_KEY);
  assert.equal(BITTENSOR_SS58_PREFIX, 42);
  assert.equal(isSs58Address("5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY"), true);
  assert.equal(isSs58Address(encode(42, key)), true);
  // The same public key under other prefixes: well-formed, but not a Bittensor address.
  for (const prefix of [0, 2, 41, 43, 63, 64, 255, 1284, 16383]) {
    assert.equal(isSs58Address(encode(prefix, key)), false, String(prefix));
  }
  assert.equal(isSs58Address("15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5"), false);
});

Deno.test("ss58 refuses bad checksums, alphabets, lengths and reserved prefixes", () => {
  const alice = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";
  const bad = [
    "",
    alice.slice(0, -1) + "Z",
    alice.replace("G", "0"),
    alice.replace("r", "l"),
    alice + "1",
    encode(42, new Uint8Array(33)),
    encode(42, new Uint8Array(20)),
    base58.encode(concatBytes(Uint8Array.of(0x80, 0), new Uint8Array(34))),
    "x".repeat(10_000),
  ];
  for (const address of bad) {
    assert.equal(isSs58Address(address), false, address.slice(0, 60));
    assert.throws(() => ss58PublicKey(address), TypeError);
  }
});

Deno.test("ss58 encodes a public key to the address the decoder reads back, on one- and two-byte prefixes", () => {
  const key = hex.decode(ALICE_KEY);
  assert.equal(encodeSs58(key), "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY");
  assert.equal(encodeSs58(key, 0), "15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5");
  for (const prefix of [2, 42, 63, 64, 255, 1284, 16383]) {
    assert.equal(encodeSs58(key, prefix), encode(prefix, key), String(prefix));
    assert.deepEqual(decodeSs58(encodeSs58(key, prefix)), { prefix, publicKey: key });
  }
  assert.throws(() => encodeSs58(new Uint8Array(31)), RangeError);
  assert.throws(() => encodeSs58(key, 16384), RangeError);
});

Deno.test("bittensorPublicKey answers the key of a prefix-42 address, also when asked again, never a shared array", () => {
  const alice = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";
  const first = bittensorPublicKey(alice)!;
  assert.equal(hex.encode(first), ALICE_KEY);
  first.fill(0);
  assert.equal(
    hex.encode(bittensorPublicKey(alice)!),
    ALICE_KEY,
    "a caller's change does not reach the next answer",
  );
  assert.equal(bittensorPublicKey("15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5"), null, "prefix 0");
  assert.equal(bittensorPublicKey(alice.slice(0, -1) + "Z"), null, "bad checksum");
  const many = Array.from(
    { length: 9_000 },
    (_, i) => encode(42, new Uint8Array(32).fill(i % 256).fill(i >> 8, 0, 1)),
  );
  for (const address of many) assert.notEqual(bittensorPublicKey(address), null);
  assert.equal(hex.encode(bittensorPublicKey(alice)!), ALICE_KEY, "still right after the memo started over");
});
