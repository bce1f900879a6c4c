import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";

adapterTest("a setting keeps the first value written", async ({ storage }) => {
  assert.equal(await storage.settings.getOrCreate("cursor_secret", "first"), "first");
  assert.equal(await storage.settings.getOrCreate("cursor_secret", "second"), "first");
  assert.equal(await storage.settings.getOrCreate("other", "own"), "own", "settings are independent");
});

adapterTest("get reads a setting without creating it", async ({ storage }) => {
  assert.equal(await storage.settings.get("cursor_secret"), null);
  assert.equal(await storage.settings.get("cursor_secret"), null, "reading did not store anything");
  await storage.settings.getOrCreate("cursor_secret", "first");
  assert.equal(await storage.settings.get("cursor_secret"), "first");
  assert.equal(await storage.settings.get("other"), null);
});

adapterTest(
  "instances racing to create a setting all get the one value that won",
  { needs: "concurrency" },
  async (adapter) => {
    const other = await adapter.openAnother();
    const handles = [adapter.storage.settings, other.settings];
    const candidates = Array.from({ length: 12 }, (_, index) => `candidate-${index}`);
    const values = await Promise.all(
      candidates.map((candidate, index) => handles[index % 2]!.getOrCreate("cursor_secret", candidate)),
    );
    assert.equal(new Set(values).size, 1, `values: ${values.join(", ")}`);
    assert.ok(candidates.includes(values[0]!));
    assert.equal(await handles[1]!.getOrCreate("cursor_secret", "late"), values[0]);
    assert.equal(await handles[1]!.get("cursor_secret"), values[0]);
  },
);
