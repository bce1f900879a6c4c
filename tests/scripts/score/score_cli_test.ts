/** `deno task score` run as a subprocess, as a validator would run it. */
import assert from "node:assert/strict";

const ROOT = new URL("../../../", import.meta.url);
const GOLDEN = JSON.parse(
  await Deno.readTextFile(new URL("tests/scoring/golden/scoring-v1.json", ROOT)),
) as { input: unknown; expected: unknown };

/** The permission flags `deno task score` runs with (deno.json), so the test runs the task as shipped. */
const TASK_FLAGS = (JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))).tasks.score as string)
  .split(/\s+/).filter((word) => word.startsWith("--allow-"));

async function score(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const command = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...TASK_FLAGS,
      "--config",
      new URL("deno.json", ROOT).pathname,
      "scripts/score/score.ts",
      ...args,
    ],
    cwd: ROOT.pathname,
    stdout: "piped",
    stderr: "piped",
  });
  const { code, stdout, stderr } = await command.output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

async function withFile<T>(content: string, run: (path: string) => Promise<T>): Promise<T> {
  const path = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(path, content);
    return await run(path);
  } finally {
    await Deno.remove(path);
  }
}

Deno.test("score FILE prints the golden expected result for the golden input", async () => {
  const run = await withFile(JSON.stringify(GOLDEN.input), (path) => score(path));
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), GOLDEN.expected);
});

Deno.test("score FILE --weights adds each uid's u16 weight from the scores", async () => {
  const run = await withFile(JSON.stringify(GOLDEN.input), (path) => score(path, "--weights"));
  assert.equal(run.code, 0, run.stderr);
  const { weights, ...result } = JSON.parse(run.stdout);
  assert.deepEqual(result, GOLDEN.expected);
  // Scores 0.098328 (uid 10, the largest → 65535), 0.051009 (11), 0.008462 (12), 0.042985 (15),
  // 0.027038 (17), 0.050558 (77); e.g. 0.051009 / 0.098328 × 65535 = 33997.0… → 33997.
  // Uids with a zero score (14, 16, 18, 19) are left out.
  assert.deepEqual(weights, {
    uids: [10, 11, 12, 15, 17, 77],
    weights: [65535, 33997, 5640, 28649, 18021, 33697],
  });
});

Deno.test("a file that cannot be read, is not JSON or is not a scorer input exits 1 with a message", async () => {
  const missing = await score("/nonexistent/input.json");
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^error: Cannot read \/nonexistent\/input\.json: /);
  assert.equal(missing.stdout, "");
  const garbled = await withFile("{not json", (path) => score(path));
  assert.equal(garbled.code, 1);
  assert.match(garbled.stderr, /is not JSON: /);
  const wrong = await withFile(JSON.stringify({ computedAt: "soon" }), (path) => score(path));
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /^error: Invalid scorer input: computedAt: .*windowDays: /);
  assert.equal(wrong.stdout, "");
});

Deno.test("a usage error exits 2 with the usage text", async () => {
  const none = await score();
  assert.equal(none.code, 2);
  assert.match(none.stderr, /usage: deno task score FILE \[--weights\]/);
  const unknown = await score("input.json", "--bogus");
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /bogus/);
});
