import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";

adapterTest("rate limit store counts hits per bucket and window", async ({ storage }) => {
  const counts = [];
  for (let i = 0; i < 3; i++) {
    counts.push(await storage.rateLimits.hit("key:a", { windowStartMs: 60_000, windowMs: 60_000 }));
  }
  assert.deepEqual(counts, [1, 2, 3]);
  assert.equal(await storage.rateLimits.hit("key:b", { windowStartMs: 60_000, windowMs: 60_000 }), 1);
  assert.equal(await storage.rateLimits.hit("key:a", { windowStartMs: 120_000, windowMs: 60_000 }), 1);
});

adapterTest("rate limit store adds several hits at once", async ({ storage }) => {
  const window = { windowStartMs: 0, windowMs: 60_000 };
  assert.equal(await storage.rateLimits.hit("key:a", { ...window, hits: 5 }), 5);
  assert.equal(await storage.rateLimits.hit("key:a", window), 6);
});

adapterTest("rate limit store sees hits made through another handle", async (adapter) => {
  const other = await adapter.openAnother();
  const window = { windowStartMs: 0, windowMs: 60_000 };
  assert.equal(await adapter.storage.rateLimits.hit("key:a", window), 1);
  assert.equal(await other.rateLimits.hit("key:a", window), 2);
  assert.equal(await adapter.storage.rateLimits.hit("key:a", window), 3);
});

adapterTest(
  "rate limit store counts racing hits from two handles exactly",
  { needs: "concurrency" },
  async (adapter) => {
    const other = await adapter.openAnother();
    const handles = [adapter.storage, other];
    const hits = Array.from(
      { length: 40 },
      (_, i) => handles[i % 2]!.rateLimits.hit("key:race", { windowStartMs: 0, windowMs: 60_000 }),
    );
    const counts = (await Promise.all(hits)).toSorted((a, b) => a - b);
    assert.deepEqual(counts, Array.from({ length: 40 }, (_, i) => i + 1));
  },
);

adapterTest("rate limit store purges ended windows (or lets storage expire them)", async ({ storage }) => {
  await storage.rateLimits.hit("key:a", { windowStartMs: 0, windowMs: 60_000 });
  await storage.rateLimits.hit("key:a", { windowStartMs: 60_000, windowMs: 60_000 });
  const purged = await storage.rateLimits.purgeEnded(60_000);
  assert.equal(purged, storage.kind === "postgres" ? 1 : 0);
  assert.equal(await storage.rateLimits.hit("key:a", { windowStartMs: 60_000, windowMs: 60_000 }), 2);
});

adapterTest(
  "rate limit store takes hits back (negative hits), as the sign-in limits do",
  async ({ storage }) => {
    const window = { windowStartMs: 0, windowMs: 60_000 };
    assert.equal(await storage.rateLimits.hit("signin:a", window), 1);
    assert.equal(await storage.rateLimits.hit("signin:a", window), 2);
    assert.equal(await storage.rateLimits.hit("signin:a", { ...window, hits: -1 }), 1);
    assert.equal(await storage.rateLimits.hit("signin:a", window), 2);
  },
);
