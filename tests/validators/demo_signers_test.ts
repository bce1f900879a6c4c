/**
 * docs/validators.md "Demo file": every signing secret it lists gives the hotkey the demo metagraph
 * holds at that uid, so a reader can drive a local service with `deno task sign` as those neurons.
 */
import assert from "node:assert/strict";
import { signerFromSecretHex } from "../../actors/validators/mod.ts";

const DOC = new URL("../../docs/validators.md", import.meta.url);
const DEMO = new URL("../../actors/validators/demo_metagraph.json", import.meta.url);

Deno.test("each dev-account secret of docs/validators.md signs as the demo metagraph's hotkey at its uid", async () => {
  const doc = await Deno.readTextFile(DOC);
  const rows = [...doc.matchAll(/^\| (\d+) +\| [A-Za-z]+ +\| `([0-9a-f]{64})` \|$/gm)];
  assert.equal(rows.length, 5, "the five dev-account rows");
  const demo = JSON.parse(await Deno.readTextFile(DEMO)) as { neurons: { uid: number; hotkey: string }[] };
  const hotkeyAt = new Map(demo.neurons.map((neuron) => [neuron.uid, neuron.hotkey]));
  for (const [, uid, secret] of rows) {
    assert.equal(signerFromSecretHex(secret!).hotkey, hotkeyAt.get(Number(uid)), `uid ${uid}`);
  }
});
