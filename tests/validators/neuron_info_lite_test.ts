import assert from "node:assert/strict";
import { hex } from "@scure/base";
import { decodeNeuronsLite, netuidCallArgument, payloadFromRpcResult } from "../../actors/validators/mod.ts";
import {
  compactBytes,
  encodeNeuronInfoLite,
  encodeNeuronsLite,
  generateNeurons,
} from "../support/neuron_info_scale.ts";
import { neuronOfFixture } from "../support/neurons.ts";

const NETUID = 41;
const VALIDATORS = [0, 5, 17, 255, 700, 1023];
const fixtures = generateNeurons(1024, { netuid: NETUID, validators: VALIDATORS });

const expected = neuronOfFixture;

function refuses(payload: Uint8Array, pattern: RegExp, netuid = NETUID) {
  assert.throws(
    () => decodeNeuronsLite(payload, { netuid }),
    (e) => e instanceof RangeError && pattern.test(e.message),
  );
}

Deno.test("the test encoder writes SCALE compacts as the specification's examples", () => {
  const cases: [number | bigint, string][] = [
    [0, "00"],
    [1, "04"],
    [42, "a8"],
    [63, "fc"],
    [64, "0101"],
    [16383, "fdff"],
    [16384, "02000100"],
    [65535, "feff0300"],
    [2 ** 30 - 1, "feffffff"],
    [2 ** 30, "0300000040"],
    [2n ** 32n, "070000000001"],
    [2n ** 64n - 1n, "13ffffffffffffffff"],
  ];
  for (const [value, bytes] of cases) assert.equal(hex.encode(compactBytes(value)), bytes, String(value));
});

Deno.test("1024 neurons with several validators decode exactly, scaled as docs/validators.md says", () => {
  const neurons = decodeNeuronsLite(encodeNeuronsLite(fixtures), { netuid: NETUID });
  assert.equal(neurons.length, 1024);
  assert.deepEqual(neurons, fixtures.map(expected));
  const validators = neurons.filter((n) => n.validatorPermit);
  assert.deepEqual(validators.map((n) => n.uid), VALIDATORS);
  assert.equal(validators[0]!.stakeRao, 312_460_092_414_791n + 2n ** 60n + 7n);
  assert.ok(neurons.every((n) => n.hotkey.startsWith("5") && n.incentive >= 0 && n.incentive <= 1));
});

Deno.test("the older Vec<u8>-wrapped payload decodes to the same neurons", () => {
  const bare = decodeNeuronsLite(encodeNeuronsLite(fixtures), { netuid: NETUID });
  assert.deepEqual(
    decodeNeuronsLite(encodeNeuronsLite(fixtures, { wrapped: true }), { netuid: NETUID }),
    bare,
  );
  const one = fixtures.slice(0, 1);
  assert.deepEqual(decodeNeuronsLite(encodeNeuronsLite(one, { wrapped: true }), { netuid: NETUID }), [
    expected(one[0]!),
  ]);
});

Deno.test("an empty subnet decodes to no neurons in both forms", () => {
  assert.deepEqual(decodeNeuronsLite(Uint8Array.of(0), { netuid: NETUID }), []);
  assert.deepEqual(decodeNeuronsLite(encodeNeuronsLite([], { wrapped: true }), { netuid: NETUID }), []);
  refuses(new Uint8Array(0), /Cannot decode/);
});

Deno.test("a truncated payload is refused whole, wherever it is cut", () => {
  const payload = encodeNeuronsLite(fixtures.slice(0, 4));
  const wrapped = encodeNeuronsLite(fixtures.slice(0, 4), { wrapped: true });
  for (const cut of [1, 2, 20, 100, payload.length - 40, payload.length - 2]) {
    refuses(payload.subarray(0, payload.length - cut), /Cannot decode NeuronInfoLite payload/);
    refuses(wrapped.subarray(0, wrapped.length - cut), /Cannot decode NeuronInfoLite payload/);
  }
});

Deno.test("trailing bytes after the last neuron are refused, never ignored", () => {
  const payload = encodeNeuronsLite(fixtures.slice(0, 3));
  refuses(Uint8Array.of(...payload, 0), /1 trailing bytes after 3 neurons/);
  const extra = encodeNeuronInfoLite(fixtures[3]!);
  refuses(Uint8Array.of(...payload, ...extra), /trailing bytes/);
  const wrapped = encodeNeuronsLite(fixtures.slice(0, 3), { wrapped: true });
  refuses(Uint8Array.of(...wrapped, 7, 7), /Cannot decode/);
});

Deno.test("garbage, impossible counts and out-of-range values are refused", () => {
  refuses(crypto.getRandomValues(new Uint8Array(5000)).fill(0xff, 0, 1), /Cannot decode/);
  refuses(Uint8Array.of(...compactBytes(1_000_000), ...new Uint8Array(500)), /room for at most 3/);
  const badBool = encodeNeuronsLite(fixtures.slice(0, 1));
  badBool[1 + 32 + 32 + 1 + 1] = 2; // `active`
  refuses(badBool, /Invalid bool byte 2/);
  const bigU16 = { ...fixtures[1]!, incentive: 65_536 };
  refuses(encodeNeuronsLite([bigU16]), /Compact<u16> out of range/);
});

Deno.test("a neuron of another subnet, or a uid or hotkey listed twice, rejects the payload", () => {
  refuses(encodeNeuronsLite(fixtures.slice(0, 2)), /belongs to netuid 41, not 42/, 42);
  refuses(encodeNeuronsLite([fixtures[1]!, { ...fixtures[2]!, uid: 1 }]), /uid 1 appears twice/);
  refuses(
    encodeNeuronsLite([fixtures[1]!, { ...fixtures[2]!, hotkey: fixtures[1]!.hotkey }]),
    /appears twice/,
  );
});

Deno.test("a payload that is a view into a larger buffer decodes from its own first byte", () => {
  const payload = encodeNeuronsLite(fixtures.slice(0, 2));
  const framed = Uint8Array.of(9, 9, 9, ...payload, 9);
  const view = framed.subarray(3, 3 + payload.length);
  assert.deepEqual(decodeNeuronsLite(view, { netuid: NETUID }), fixtures.slice(0, 2).map(expected));
});

Deno.test("JSON-RPC results become payload bytes: state_call hex or the older byte array", () => {
  assert.deepEqual(payloadFromRpcResult("0x0401ff"), Uint8Array.of(4, 1, 255));
  assert.deepEqual(payloadFromRpcResult("0xABcd"), Uint8Array.of(0xab, 0xcd));
  assert.deepEqual(payloadFromRpcResult([4, 1, 255]), Uint8Array.of(4, 1, 255));
  for (const bad of ["0401", "0x0", "0xzz", [256], [1.5], null, { result: "0x00" }]) {
    assert.throws(() => payloadFromRpcResult(bad), TypeError, JSON.stringify(bad));
  }
});

Deno.test("the state_call argument is the netuid as little-endian u16 hex", () => {
  assert.equal(netuidCallArgument(41), "0x2900");
  assert.equal(netuidCallArgument(0), "0x0000");
  assert.equal(netuidCallArgument(300), "0x2c01");
  assert.throws(() => netuidCallArgument(65_536), RangeError);
});
