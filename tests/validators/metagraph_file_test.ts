import assert from "node:assert/strict";
import {
  decodeNeuronsLite,
  FileMetagraphSource,
  metagraphFileOf,
  MetagraphSourceError,
  parseMetagraphFile,
  signerFromSecretHex,
} from "../../actors/validators/mod.ts";
import { encodeNeuronsLite, generateNeurons } from "../support/neuron_info_scale.ts";

const DEMO = new URL("../../actors/validators/demo_metagraph.json", import.meta.url);
const ALICE = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";
const BOB = "5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty";

/** The example neuron of docs/validators.md ("Metagraph file"), with real addresses in place of "5…". */
const EXAMPLE = {
  uid: 0,
  hotkey: ALICE,
  coldkey: BOB,
  active: true,
  validatorPermit: true,
  stakeRao: "312460092414791",
  emissionRao: "15594809233",
  incentive: 0,
  consensus: 0,
  trust: 0,
  validatorTrust: 1,
  dividends: 0.380346,
  lastUpdate: 6852650,
};

function file(neurons: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ netuid: 41, block: 6852690, neurons, ...extra });
}

Deno.test("docs/validators.md's example metagraph file parses into neurons with rao as bigint", () => {
  const snapshot = parseMetagraphFile(file([EXAMPLE]));
  assert.deepEqual(snapshot, {
    netuid: 41,
    block: 6852690,
    neurons: [{ ...EXAMPLE, stakeRao: 312_460_092_414_791n, emissionRao: 15_594_809_233n }],
  });
  const asNumbers = parseMetagraphFile(file([{ ...EXAMPLE, stakeRao: 5, emissionRao: 0 }]));
  assert.equal(asNumbers.neurons[0]!.stakeRao, 5n);
  const huge = parseMetagraphFile(file([{ ...EXAMPLE, stakeRao: "18446744073709551615" }]));
  assert.equal(huge.neurons[0]!.stakeRao, 2n ** 64n - 1n);
});

Deno.test("a malformed metagraph file is refused, naming the field", () => {
  const cases: [string, RegExp][] = [
    ["{", /not JSON/],
    [
      file([{ ...EXAMPLE, hotkey: "15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5" }]),
      /neurons\.0\.hotkey/,
    ],
    [file([{ ...EXAMPLE, stakeRao: 1.5 }]), /neurons\.0\.stakeRao/],
    [file([{ ...EXAMPLE, stakeRao: 2 ** 60 }]), /neurons\.0\.stakeRao/],
    [file([{ ...EXAMPLE, stakeRao: "18446744073709551616" }]), /neurons\.0\.stakeRao/],
    [file([{ ...EXAMPLE, emissionRao: "-1" }]), /neurons\.0\.emissionRao/],
    [file([{ ...EXAMPLE, dividends: 1.2 }]), /neurons\.0\.dividends/],
    [file([{ ...EXAMPLE, validatorPermit: undefined }]), /neurons\.0\.validatorPermit/],
    [file([EXAMPLE, { ...EXAMPLE, hotkey: BOB }]), /uid 0 appears twice/],
    [file([EXAMPLE, { ...EXAMPLE, uid: 1 }]), /appears twice/],
    [file([EXAMPLE], { block: "6852690" }), /block/],
  ];
  for (const [text, pattern] of cases) {
    assert.throws(
      () => parseMetagraphFile(text),
      (e) => e instanceof TypeError && pattern.test(e.message),
      text,
    );
  }
});

Deno.test("a decoded chain metagraph written as a file reads back as the same neurons", () => {
  const neurons = decodeNeuronsLite(
    encodeNeuronsLite(generateNeurons(1024, { netuid: 41, validators: [3, 9] })),
    {
      netuid: 41,
    },
  );
  const snapshot = { netuid: 41, block: 7_000_000, neurons };
  assert.deepEqual(parseMetagraphFile(JSON.stringify(metagraphFileOf(snapshot))), snapshot);
});

Deno.test("the demo metagraph has validators with permit and stake whose keys the docs give", async () => {
  const snapshot = parseMetagraphFile(await Deno.readTextFile(DEMO));
  assert.equal(snapshot.netuid, 41);
  const validators = snapshot.neurons.filter((n) => n.validatorPermit && n.stakeRao > 0n);
  const seeded = ["11", "33", "44"].map((byte) => signerFromSecretHex(byte.repeat(32)).hotkey);
  assert.deepEqual(validators.map((n) => n.hotkey), seeded);
  const hotkeys = snapshot.neurons.map((n) => n.hotkey);
  assert.ok(hotkeys.includes(signerFromSecretHex("22".repeat(32)).hotkey));
  assert.ok(hotkeys.includes(ALICE) && hotkeys.includes(BOB));
  assert.ok(snapshot.neurons.some((n) => !n.validatorPermit && n.stakeRao > 0n && !n.active));
});

Deno.test("the file source re-reads its file at every fetch", async () => {
  const path = await Deno.makeTempFile({ suffix: ".json" });
  try {
    const source = new FileMetagraphSource({ path, netuid: 41 });
    await Deno.writeTextFile(path, file([EXAMPLE]));
    assert.deepEqual((await source.fetch(new AbortController().signal)).neurons.map((n) => n.hotkey), [
      ALICE,
    ]);
    await Deno.writeTextFile(path, file([EXAMPLE, { ...EXAMPLE, uid: 1, hotkey: BOB }], { block: 6852700 }));
    const second = await source.fetch(new AbortController().signal);
    assert.deepEqual([second.block, second.neurons.map((n) => n.hotkey)], [6852700, [ALICE, BOB]]);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("the file source fails the sync on a missing, malformed or other-subnet file", async () => {
  const path = await Deno.makeTempFile({ suffix: ".json" });
  const signal = new AbortController().signal;
  try {
    const source = new FileMetagraphSource({ path, netuid: 41 });
    await Deno.writeTextFile(path, file([{ ...EXAMPLE, uid: -1 }]));
    await assert.rejects(
      source.fetch(signal),
      (e) => e instanceof MetagraphSourceError && /uid/.test(e.message),
    );
    await Deno.writeTextFile(path, file([EXAMPLE], { netuid: 42 }));
    await assert.rejects(
      source.fetch(signal),
      (e) => e instanceof MetagraphSourceError && /netuid 42, not 41/.test(e.message),
    );
    await Deno.remove(path);
    await assert.rejects(source.fetch(signal), MetagraphSourceError);
  } finally {
    await Deno.remove(path).catch(() => {});
  }
});

Deno.test("the file source honours an aborted signal", async () => {
  const controller = new AbortController();
  controller.abort(new Error("sync cancelled"));
  const source = new FileMetagraphSource({ path: DEMO, netuid: 41 });
  await assert.rejects(source.fetch(controller.signal), /sync cancelled/);
});
