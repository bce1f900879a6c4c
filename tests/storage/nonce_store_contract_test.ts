import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";
import { waitMs } from "../support/assignments.ts";

const LONG = { ttlMs: 600_000 };
const SHORT = { ttlMs: 20 };

adapterTest("a nonce is accepted once per hotkey and refused on reuse", async ({ storage }) => {
  const nonces = storage.nonces;
  assert.equal(await nonces.consume("5Alice", "n-1", LONG), true);
  assert.equal(await nonces.consume("5Alice", "n-1", LONG), false);
  assert.equal(await nonces.consume("5Alice", "n-2", LONG), true, "another nonce");
  assert.equal(await nonces.consume("5Bob", "n-1", LONG), true, "the same nonce of another hotkey");
  assert.equal(await nonces.consume("5Bob", "n-1", LONG), false);
});

adapterTest("an expired nonce counts as unused, and a purge keeps live ones", async ({ kind, storage }) => {
  const nonces = storage.nonces;
  assert.equal(await nonces.consume("5Alice", "short", SHORT), true);
  assert.equal(await nonces.consume("5Alice", "long", LONG), true);
  await waitMs(60);
  // PostgreSQL deletes the expired row; Deno KV expires entries itself (expireIn) and reports 0.
  assert.equal(await nonces.purgeExpired(), kind === "postgres" ? 1 : 0);
  assert.equal(await nonces.consume("5Alice", "long", LONG), false, "still live after the purge");
  assert.equal(await nonces.consume("5Alice", "short", LONG), true, "expired: usable again");
  assert.equal(await nonces.consume("5Alice", "short", LONG), false);
});

adapterTest(
  "a nonce raced on two instances is accepted exactly once",
  { needs: "concurrency" },
  async (adapter) => {
    const other = await adapter.openAnother();
    for (let round = 0; round < 5; round++) {
      const uses = await Promise.all(
        Array.from(
          { length: 16 },
          (_, i) => (i % 2 ? other : adapter.storage).nonces.consume("5Alice", `race-${round}`, LONG),
        ),
      );
      assert.equal(uses.filter(Boolean).length, 1, `round ${round}: ${uses.join(",")}`);
    }
  },
);

const WINDOW = { windowStartMs: 1_800_000_000_000, windowMs: 60_000 };

adapterTest(
  "a nonce used with a rate hit is fresh once, and every use counts in the window",
  async ({ storage }) => {
    const nonces = storage.nonces;
    const hit = { bucket: "validator:5Alice", ...WINDOW };
    assert.deepEqual(await nonces.consumeCounting("5Alice", "c-1", LONG, hit), { fresh: true, count: 1 });
    assert.deepEqual(
      await nonces.consumeCounting("5Alice", "c-1", LONG, hit),
      { fresh: false, count: 2 },
      "a replay",
    );
    assert.deepEqual(await nonces.consumeCounting("5Alice", "c-2", LONG, hit), { fresh: true, count: 3 });
    assert.equal(await nonces.consume("5Alice", "c-2", LONG), false, "the same nonces as consume");
    assert.equal(
      await storage.rateLimits.hit(hit.bucket, WINDOW),
      4,
      "the same windows as the rate-limit store",
    );
    const next = { ...hit, windowStartMs: WINDOW.windowStartMs + WINDOW.windowMs };
    assert.deepEqual(
      await nonces.consumeCounting("5Alice", "c-3", LONG, next),
      { fresh: true, count: 1 },
      "a new window",
    );
  },
);

adapterTest(
  "a nonce raced with rate hits on two instances is fresh exactly once, every hit counted",
  { needs: "concurrency" },
  async (adapter) => {
    const other = await adapter.openAnother();
    const hit = { bucket: "validator:5Bob", ...WINDOW };
    for (let round = 0; round < 5; round++) {
      const uses = await Promise.all(
        Array.from(
          { length: 16 },
          (_, i) =>
            (i % 2 ? other : adapter.storage).nonces.consumeCounting("5Bob", `race-${round}`, LONG, hit),
        ),
      );
      assert.equal(uses.filter((use) => use.fresh).length, 1, `round ${round}`);
      const counts = uses.map((use) => use.count).toSorted((a, b) => a - b);
      assert.deepEqual(
        counts,
        Array.from({ length: 16 }, (_, i) => round * 16 + i + 1),
        "each hit its own count",
      );
    }
  },
);
