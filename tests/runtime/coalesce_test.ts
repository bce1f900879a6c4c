import assert from "node:assert/strict";
import { Coalescer } from "../../actors/runtime/mod.ts";

/** A flush the test releases by hand, recording every batch it was given. */
function manualFlush() {
  const batches: string[][] = [];
  const releases: (() => void)[] = [];
  const flush = (key: string, items: string[]) => {
    batches.push(items);
    return new Promise<string[]>((resolve, reject) =>
      releases.push(() =>
        key === "bad" ? reject(new Error("boom")) : resolve(items.map((i) => `${key}:${i}`))
      )
    );
  };
  return { batches, releases, flush };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("coalescer flushes the first call at once and batches calls that arrive while it runs", async () => {
  const { batches, releases, flush } = manualFlush();
  const coalescer = new Coalescer(flush);
  const first = coalescer.submit("k", "a");
  assert.deepEqual(batches, [["a"]], "the first call does not wait");
  const later = [coalescer.submit("k", "b"), coalescer.submit("k", "c")];
  const other = coalescer.submit("j", "z");
  assert.deepEqual(batches, [["a"], ["z"]], "calls made during a round trip wait for the next one");
  releases.shift()!();
  assert.equal(await first, "k:a");
  await tick();
  assert.deepEqual(batches, [["a"], ["z"], ["b", "c"]]);
  releases.shift()!();
  releases.shift()!();
  assert.deepEqual(await Promise.all([...later, other]), ["k:b", "k:c", "j:z"]);
  await tick();
  assert.equal(coalescer.size, 0, "idle keys hold no memory");
});

Deno.test("coalescer rejects only the failed batch; the next batch still runs", async () => {
  const { releases, flush } = manualFlush();
  const coalescer = new Coalescer(flush);
  const failed = coalescer.submit("bad", "a");
  const queued = coalescer.submit("bad", "b");
  releases.shift()!();
  await assert.rejects(failed, /boom/);
  await tick();
  releases.shift()!();
  await assert.rejects(queued, /boom/);
  const fine = coalescer.submit("k", "c");
  releases.shift()!();
  assert.equal(await fine, "k:c");
});
