import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";
import { secondInstanceStorage } from "../support/second_instance.ts";

const T0 = Date.UTC(2026, 10, 20, 12);
const TTL = 30_000;

adapterTest("a free lease is taken, and another holder is refused until it expires", async ({ storage }) => {
  const leases = storage.jobLeases;
  assert.equal(await leases.tryAcquire("ingest", "a", T0, TTL), true);
  assert.equal(await leases.tryAcquire("ingest", "b", T0, TTL), false);
  assert.equal(await leases.tryAcquire("ingest", "b", T0 + TTL - 1, TTL), false);
  assert.equal(await leases.tryAcquire("ingest", "b", T0 + TTL, TTL), true, "expired at exactly now + ttl");
  assert.equal(await leases.tryAcquire("ingest", "a", T0 + TTL, TTL), false, "the old holder lost it");
});

adapterTest("the holder renews its own lease, which moves the expiry", async ({ storage }) => {
  const leases = storage.jobLeases;
  assert.equal(await leases.tryAcquire("ingest", "a", T0, TTL), true);
  assert.equal(await leases.tryAcquire("ingest", "a", T0 + 20_000, TTL), true);
  assert.equal(await leases.tryAcquire("ingest", "b", T0 + TTL, TTL), false, "renewed until T0 + 50 s");
  assert.equal(await leases.tryAcquire("ingest", "b", T0 + 20_000 + TTL - 1, TTL), false);
  assert.equal(await leases.tryAcquire("ingest", "b", T0 + 20_000 + TTL, TTL), true);
});

adapterTest("the holder may take its lease again after it expired", async ({ storage }) => {
  const leases = storage.jobLeases;
  assert.equal(await leases.tryAcquire("ingest", "a", T0, TTL), true);
  assert.equal(await leases.tryAcquire("ingest", "a", T0 + 5 * TTL, TTL), true);
  assert.equal(await leases.tryAcquire("ingest", "b", T0 + 5 * TTL + 1, TTL), false);
});

adapterTest("release frees the lease for others, but only when called by its holder", async ({ storage }) => {
  const leases = storage.jobLeases;
  assert.equal(await leases.tryAcquire("ingest", "a", T0, TTL), true);
  await leases.release("ingest", "b");
  assert.equal(await leases.tryAcquire("ingest", "b", T0 + 1, TTL), false, "b cannot release a's lease");
  await leases.release("ingest", "a");
  assert.equal(await leases.tryAcquire("ingest", "b", T0 + 1, TTL), true, "free at once after release");
  await leases.release("ingest", "a");
  assert.equal(
    await leases.tryAcquire("ingest", "a", T0 + 2, TTL),
    false,
    "a's late release did not free b's",
  );
  await leases.release("never-taken", "a");
  assert.equal(await leases.tryAcquire("never-taken", "c", T0, TTL), true);
});

adapterTest("leases of different jobs are independent", async ({ storage }) => {
  const leases = storage.jobLeases;
  assert.equal(await leases.tryAcquire("ingest", "a", T0, TTL), true);
  assert.equal(await leases.tryAcquire("scoring", "b", T0, TTL), true);
  assert.equal(await leases.tryAcquire("ingest", "b", T0, TTL), false);
  assert.equal(await leases.tryAcquire("scoring", "a", T0, TTL), false);
  await leases.release("ingest", "a");
  assert.equal(
    await leases.tryAcquire("scoring", "a", T0, TTL),
    false,
    "releasing one job frees only that job",
  );
});

adapterTest("many holders racing from two instances for one lease: exactly one wins", async (adapter) => {
  const handles = [adapter.storage.jobLeases, (await secondInstanceStorage(adapter)).jobLeases];
  const contenders = Array.from({ length: 16 }, (_, index) => `holder-${index}`);
  const race = async (job: string, nowMs: number) => {
    const results = await Promise.all(
      contenders.map((holder, index) => handles[index % 2]!.tryAcquire(job, holder, nowMs, TTL)),
    );
    return contenders.filter((_, index) => results[index]);
  };
  for (const job of ["ingest", "scoring", "views"]) {
    const winners = await race(job, T0);
    assert.equal(winners.length, 1, `${job}: winners ${winners.join(", ")}`);
    const others = contenders.filter((holder) => holder !== winners[0]);
    const late = await Promise.all(others.map((holder) => handles[0]!.tryAcquire(job, holder, T0 + 1, TTL)));
    assert.ok(late.every((won) => !won), `${job}: the winner holds the lease`);
  }
  const afterExpiry = await race("ingest", T0 + TTL);
  assert.equal(afterExpiry.length, 1, `after expiry: winners ${afterExpiry.join(", ")}`);
});
