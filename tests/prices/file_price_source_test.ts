import assert from "node:assert/strict";
import { FilePriceSource, PriceSourceError } from "../../actors/prices/mod.ts";

const DEMO = new URL("../../actors/prices/demo_prices.json", import.meta.url);
const signal = () => new AbortController().signal;

async function withFile(fn: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "fgw_prices_" });
  try {
    await fn(`${dir}/prices.json`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function refusal(source: FilePriceSource): Promise<string> {
  try {
    await source.fetch(signal());
  } catch (error) {
    assert.ok(error instanceof PriceSourceError, `expected a PriceSourceError, got ${error}`);
    return error.message;
  }
  assert.fail("the file was accepted");
}

Deno.test("the shipped demo prices file reads as docs/scoring.md (Sources) describes it", async () => {
  const prices = await new FilePriceSource({ path: DEMO }).fetch(signal());
  assert.deepEqual(prices, {
    taoUsd: 412.5,
    alphaTao: 0.0095315,
    minerAlphaPerDay: 2952,
    at: "2026-11-20T12:00:00.000Z",
  });
});

Deno.test("the file is re-read at every fetch, so editing it changes the prices; `at` is normalised to UTC", async () => {
  await withFile(async (path) => {
    const source = new FilePriceSource({ path });
    await Deno.writeTextFile(
      path,
      '{"taoUsd":400,"alphaTao":0.01,"minerAlphaPerDay":2952,"at":"2026-11-20T12:00:00Z"}',
    );
    assert.equal((await source.fetch(signal())).taoUsd, 400);
    await Deno.writeTextFile(
      path,
      '{"taoUsd":401.75,"alphaTao":0.02,"minerAlphaPerDay":0,"at":"2026-11-20T14:30:00+02:00","note":"manual"}',
    );
    assert.deepEqual(await source.fetch(signal()), {
      taoUsd: 401.75,
      alphaTao: 0.02,
      minerAlphaPerDay: 0,
      at: "2026-11-20T12:30:00.000Z",
    });
  });
});

Deno.test("a missing, non-JSON or wrongly shaped file is a source failure naming the problem", async () => {
  await withFile(async (path) => {
    const source = new FilePriceSource({ path });
    assert.match(await refusal(source), /Cannot read prices file .*prices\.json: .*No such file/i);
    await Deno.writeTextFile(path, "taoUsd=412.5");
    assert.match(await refusal(source), /Invalid prices file: not JSON/);
    const cases: [string, RegExp][] = [
      ['{"alphaTao":0.01,"minerAlphaPerDay":1,"at":"2026-11-20T12:00:00Z"}', /taoUsd: /],
      ['{"taoUsd":0,"alphaTao":0.01,"minerAlphaPerDay":1,"at":"2026-11-20T12:00:00Z"}', /taoUsd: /],
      ['{"taoUsd":1e999,"alphaTao":0.01,"minerAlphaPerDay":1,"at":"2026-11-20T12:00:00Z"}', /taoUsd: /],
      ['{"taoUsd":412.5,"alphaTao":-1,"minerAlphaPerDay":1,"at":"2026-11-20T12:00:00Z"}', /alphaTao: /],
      [
        '{"taoUsd":412.5,"alphaTao":0.01,"minerAlphaPerDay":"2952","at":"2026-11-20T12:00:00Z"}',
        /minerAlphaPerDay: /,
      ],
      ['{"taoUsd":412.5,"alphaTao":0.01,"minerAlphaPerDay":1,"at":"yesterday"}', /at: /],
      ['{"taoUsd":412.5,"alphaTao":0.01,"minerAlphaPerDay":1,"at":"2026-11-20T12:00:00"}', /at: /],
      ["[]", /\(root\): /],
    ];
    for (const [text, problem] of cases) {
      await Deno.writeTextFile(path, text);
      const message = await refusal(source);
      assert.match(message, /^Cannot read prices file .*: Invalid prices file: /, text);
      assert.match(message, problem, text);
    }
  });
});

Deno.test("an aborted fetch ends with the abort's reason, not as a source failure", async () => {
  const abort = new AbortController();
  abort.abort(new Error("stopping"));
  await assert.rejects(new FilePriceSource({ path: DEMO }).fetch(abort.signal), /stopping/);
});
