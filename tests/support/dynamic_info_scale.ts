/**
 * Builds the Subtensor answers the chain price source decodes, byte by byte from the layout in
 * `actors/prices/subnet_scale.ts` (opentensor/subtensor `rpc_info/dynamic_info.rs`), with this
 * file's own SCALE writer (the compact and little-endian helpers of `neuron_info_scale.ts`, no
 * scale-ts), so the decoder is checked against an independent encoding.
 */
import { compactBytes, littleEndian, testKey } from "./neuron_info_scale.ts";

/** `SubnetIdentityV3`: eight byte strings, in chain order. */
export interface SubnetIdentityFixture {
  subnetName: string;
  githubRepo: string;
  subnetContact: string;
  subnetUrl: string;
  discord: string;
  description: string;
  logoUrl: string;
  additional: string;
}

/** One `DynamicInfo` as the chain stores it (raw integers, 32-byte keys, names as text). */
export interface DynamicInfoFixture {
  netuid: number;
  ownerHotkey: Uint8Array;
  ownerColdkey: Uint8Array;
  subnetName: string;
  tokenSymbol: string;
  tempo: number;
  lastStep: bigint;
  blocksSinceLastStep: bigint;
  emission: bigint;
  alphaIn: bigint;
  alphaOut: bigint;
  taoIn: bigint;
  alphaOutEmission: bigint;
  alphaInEmission: bigint;
  taoInEmission: bigint;
  pendingAlphaEmission: bigint;
  pendingRootEmission: bigint;
  subnetVolume: bigint;
  networkRegisteredAt: bigint;
  subnetIdentity: SubnetIdentityFixture | null;
  /** I96F32's raw bits (signed). */
  movingPriceBits: bigint;
}

const utf8 = new TextEncoder();

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** `Vec<u8>`: compact byte length, then the bytes. */
function byteVec(value: string): Uint8Array {
  const bytes = utf8.encode(value);
  return concat([compactBytes(bytes.length), bytes]);
}

/** `Vec<Compact<u8>>`: compact count, then each byte as a compact (values ≥ 64 take two bytes). */
function compactByteVec(value: string): Uint8Array {
  const bytes = [...utf8.encode(value)];
  return concat([compactBytes(bytes.length), ...bytes.map(compactBytes)]);
}

/** A signed 128-bit integer, two's complement, little-endian. */
function i128Bytes(value: bigint): Uint8Array {
  return littleEndian(BigInt.asUintN(128, value), 16);
}

/** A plausible subnet 41 (every compact width used; the emission is 1 alpha per block). */
export function dynamicInfoFixture(overrides: Partial<DynamicInfoFixture> = {}): DynamicInfoFixture {
  return {
    netuid: 41,
    ownerHotkey: testKey("owner-hotkey"),
    ownerColdkey: testKey("owner-coldkey"),
    subnetName: "Sportstensor",
    tokenSymbol: "ש",
    tempo: 360,
    lastStep: 6_852_600n,
    blocksSinceLastStep: 90n,
    emission: 0n,
    alphaIn: 1_234_567_890_123_456n,
    alphaOut: 3_456_789_012_345_678n,
    taoIn: 11_772_000_000_000n,
    alphaOutEmission: 1_000_000_000n,
    alphaInEmission: 405_000_000n,
    taoInEmission: 3_860_000n,
    pendingAlphaEmission: 42_000_000_000n,
    pendingRootEmission: 0n,
    subnetVolume: 2n ** 70n + 12_345n,
    networkRegisteredAt: 4_100_000n,
    subnetIdentity: {
      subnetName: "Sportstensor",
      githubRepo: "https://github.com/example/sportstensor",
      subnetContact: "ops@example.com",
      subnetUrl: "https://example.com",
      discord: "example#0001",
      description: "Forecasting markets",
      logoUrl: "",
      additional: "—",
    },
    movingPriceBits: -(3n << 31n),
    ...overrides,
  };
}

/** One `DynamicInfo` in chain order. */
export function encodeDynamicInfo(info: DynamicInfoFixture): Uint8Array {
  const identity = info.subnetIdentity;
  const amounts = [
    info.lastStep,
    info.blocksSinceLastStep,
    info.emission,
    info.alphaIn,
    info.alphaOut,
    info.taoIn,
    info.alphaOutEmission,
    info.alphaInEmission,
    info.taoInEmission,
    info.pendingAlphaEmission,
    info.pendingRootEmission,
    info.subnetVolume,
    info.networkRegisteredAt,
  ];
  return concat([
    compactBytes(info.netuid),
    info.ownerHotkey,
    info.ownerColdkey,
    compactByteVec(info.subnetName),
    compactByteVec(info.tokenSymbol),
    compactBytes(info.tempo),
    ...amounts.map(compactBytes),
    identity === null ? Uint8Array.of(0) : concat([
      Uint8Array.of(1),
      ...[
        identity.subnetName,
        identity.githubRepo,
        identity.subnetContact,
        identity.subnetUrl,
        identity.discord,
        identity.description,
        identity.logoUrl,
        identity.additional,
      ].map(byteVec),
    ]),
    i128Bytes(info.movingPriceBits),
  ]);
}

/** The `get_dynamic_info` answer: `Option<DynamicInfo>`, None for null. */
export function encodeDynamicInfoAnswer(info: DynamicInfoFixture | null): Uint8Array {
  return info === null ? Uint8Array.of(0) : concat([Uint8Array.of(1), encodeDynamicInfo(info)]);
}

/** The `current_alpha_price` answer: a u64, little-endian. */
export function encodeAlphaPrice(rao: bigint): Uint8Array {
  return littleEndian(rao, 8);
}
