import assert from "node:assert/strict";
import { encodeSs58 } from "../../actors/kernel/mod.ts";
import {
  alphaTaoOf,
  decodeAlphaPriceRao,
  decodeDynamicInfo,
  minerAlphaPerDayOf,
} from "../../actors/prices/mod.ts";
import {
  dynamicInfoFixture,
  encodeAlphaPrice,
  encodeDynamicInfoAnswer,
} from "../support/dynamic_info_scale.ts";
import { compactBytes } from "../support/neuron_info_scale.ts";

const NETUID = 41;

Deno.test("every DynamicInfo field decodes to the value an independent encoder wrote, in chain order", () => {
  const fixture = dynamicInfoFixture();
  const info = decodeDynamicInfo(encodeDynamicInfoAnswer(fixture), { netuid: NETUID });
  assert.deepEqual(info, {
    ...fixture,
    ownerHotkey: encodeSs58(fixture.ownerHotkey),
    ownerColdkey: encodeSs58(fixture.ownerColdkey),
  });
  // The fixture's values are all distinct, so a swapped pair of fields could not go unnoticed.
  assert.equal(info?.alphaOutEmission, 1_000_000_000n);
  assert.equal(info?.movingPriceBits, -(3n << 31n));
});

Deno.test("a subnet without an identity, with empty names and the largest values, decodes too", () => {
  const fixture = dynamicInfoFixture({
    subnetIdentity: null,
    subnetName: "",
    tokenSymbol: "",
    tempo: 65_535,
    alphaOutEmission: 2n ** 64n - 1n,
    subnetVolume: 2n ** 128n - 1n,
    movingPriceBits: 2n ** 127n - 1n,
  });
  const info = decodeDynamicInfo(encodeDynamicInfoAnswer(fixture), { netuid: NETUID });
  assert.equal(info?.subnetIdentity, null);
  assert.equal(info?.tempo, 65_535);
  assert.equal(info?.alphaOutEmission, 2n ** 64n - 1n);
  assert.equal(info?.subnetVolume, 2n ** 128n - 1n);
  assert.equal(info?.movingPriceBits, 2n ** 127n - 1n);
});

Deno.test("None (no such subnet) decodes to null", () => {
  assert.equal(decodeDynamicInfo(Uint8Array.of(0), { netuid: NETUID }), null);
});

Deno.test("a DynamicInfo payload cut short anywhere is refused, never read in part", () => {
  const payload = encodeDynamicInfoAnswer(dynamicInfoFixture());
  for (let length = 1; length < payload.length; length++) {
    assert.throws(
      () => decodeDynamicInfo(payload.slice(0, length), { netuid: NETUID }),
      RangeError,
      `a payload cut to ${length} of ${payload.length} bytes was accepted`,
    );
  }
  assert.throws(() => decodeDynamicInfo(new Uint8Array(0), { netuid: NETUID }), RangeError);
});

Deno.test("trailing bytes, a bad Option tag, another subnet or an out-of-range value are refused", () => {
  const payload = encodeDynamicInfoAnswer(dynamicInfoFixture());
  const decode = (bytes: Uint8Array) => () => decodeDynamicInfo(bytes, { netuid: NETUID });
  assert.throws(decode(Uint8Array.of(...payload, 0)), /1 trailing bytes/);
  assert.throws(decode(Uint8Array.of(0, 0)), /1 trailing bytes/);
  assert.throws(decode(Uint8Array.of(2, ...payload.slice(1))), /Invalid Option tag 2/);
  assert.throws(() => decodeDynamicInfo(payload, { netuid: 42 }), /netuid 41, not 42/);
  const bigTempo = encodeDynamicInfoAnswer(dynamicInfoFixture({ tempo: 65_536 }));
  assert.throws(decode(bigTempo), /Compact<u16> out of range: 65536/);
  const bigEmission = encodeDynamicInfoAnswer(dynamicInfoFixture({ alphaOutEmission: 2n ** 64n }));
  assert.throws(decode(bigEmission), /Compact<u64> out of range/);
});

Deno.test("a name whose length prefix claims more bytes than the payload holds is refused", () => {
  const fixture = dynamicInfoFixture();
  const payload = encodeDynamicInfoAnswer(fixture);
  // Option tag, netuid (1 byte), two keys: then the subnet name's length prefix.
  const at = 1 + 1 + 32 + 32;
  const huge = Uint8Array.of(...payload.slice(0, at), ...compactBytes(2n ** 40n), ...payload.slice(at + 1));
  assert.throws(() => decodeDynamicInfo(huge, { netuid: NETUID }), /runs past the end/);
});

Deno.test("the alpha price is a little-endian u64 of rao, exactly 8 bytes", () => {
  assert.equal(decodeAlphaPriceRao(encodeAlphaPrice(9_531_500n)), 9_531_500n);
  assert.equal(decodeAlphaPriceRao(encodeAlphaPrice(2n ** 64n - 1n)), 2n ** 64n - 1n);
  assert.deepEqual([...encodeAlphaPrice(9_531_500n)], [0x6c, 0x70, 0x91, 0, 0, 0, 0, 0]);
  assert.throws(() => decodeAlphaPriceRao(encodeAlphaPrice(9_531_500n).slice(0, 7)), RangeError);
  assert.throws(() => decodeAlphaPriceRao(Uint8Array.of(...encodeAlphaPrice(1n), 0)), /1 trailing bytes/);
});

Deno.test("prices in the service's units: TAO per alpha = rao ÷ 1e9; miner alpha per day = emission × 7200 × 0.41", () => {
  assert.equal(alphaTaoOf(9_531_500n), 0.0095315);
  assert.equal(alphaTaoOf(0n), 0);
  // One alpha (1e9 rao) per block: 7200 blocks × 0.41 = 2952 alpha a day.
  assert.equal(minerAlphaPerDayOf(1_000_000_000n), 2952);
  assert.equal(minerAlphaPerDayOf(0n), 0);
  // The product is taken on integers (exactly 2952 rao per rao of emission), then divided once.
  assert.equal(minerAlphaPerDayOf(1n), 2952 / 1e9);
  assert.equal(minerAlphaPerDayOf(123_456_789n), 364.444441128);
});
