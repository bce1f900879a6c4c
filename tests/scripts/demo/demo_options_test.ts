/** `deno task demo`'s command line (scripts/demo/demo_options.ts): defaults, and bad values named. */
import assert from "node:assert/strict";
import { DEFAULT_SEED, parseDemoArgs } from "../../../scripts/demo/demo_options.ts";

Deno.test("the demo's options default to the fixed seed, port 8080 and four runs at once", () => {
  assert.deepEqual(parseDemoArgs([]), { seed: DEFAULT_SEED, port: 8080, concurrency: 4 });
  assert.deepEqual(parseDemoArgs(["--seed", "27", "--port", "0", "--concurrency", "2"]), {
    seed: 27,
    port: 0,
    concurrency: 2,
  });
  assert.equal(parseDemoArgs(["--help"]), "help");
});

Deno.test("a bad option value is refused naming the option", () => {
  for (
    const [argv, named] of [
      [["--seed=-1"], "--seed"],
      [["--seed", "1.5"], "--seed"],
      [["--port", "65536"], "--port"],
      [["--concurrency", "0"], "--concurrency"],
      [["--concurrency", "17"], "--concurrency"],
    ] as const
  ) {
    assert.throws(() => parseDemoArgs([...argv]), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.ok(error.message.startsWith(`${named} `), error.message);
      return true;
    });
  }
  assert.throws(() => parseDemoArgs(["--sed", "4"]), TypeError);
});
