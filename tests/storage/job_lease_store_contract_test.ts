import assert from "node:assert/strict";
import type { JobLeaseStore } from "../../storage/job_lease_store.ts";
import { adapterTest } from "../support/adapters.ts";

/** Long enough that no test outlives it. */
const LONG = 60_000;
/** Short enough to wait out: leases of this length expire during the test. */
const SHORT = 20;

/** Waits on the real clock until a lease of SHORT ms taken before the call has expired. */
function outlive(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, SHORT * 3));
}

async function grant(leases: JobLeaseStore, job: string, holder: string, ttlMs = LONG): Promise<number> {
  const lease = await leases.tryAcquire(job, { holder, ttlMs });
  assert.ok(lease, `${holder} should be granted ${job}`);
  return lease.token;
}

adapterTest(
  "a free lease is granted with a token, and another holder is refused while it lasts",
  async ({ storage }) => {
    const leases = storage.jobLeases;
    const first = await grant(leases, "ingest", "a");
    assert.equal(await leases.tryAcquire("ingest", { holder: "b", ttlMs: LONG }), null);
    const again = await grant(leases, "ingest", "a");
    assert.ok(again > first, "the holder may take its lease again, with a new, larger token");
    assert.equal(await leases.checkFence({ job: "ingest", token: again }), true);
    assert.equal(
      await leases.checkFence({ job: "ingest", token: first }),
      false,
      "the older grant is fenced off",
    );
  },
);

adapterTest(
  "expiry is measured on the storage's clock, with no time from the caller",
  async ({ storage }) => {
    const leases = storage.jobLeases;
    await grant(leases, "long", "a", LONG);
    const short = await grant(leases, "short", "a", SHORT);
    assert.equal(await leases.tryAcquire("long", { holder: "b", ttlMs: LONG }), null);
    await outlive();
    assert.equal(await leases.tryAcquire("long", { holder: "b", ttlMs: LONG }), null, "60 s have not passed");
    const taken = await grant(leases, "short", "b");
    assert.ok(taken > short, "the expired lease went to b with a larger token");
  },
);

adapterTest(
  "every hand-over grants a larger token, and a released token is never reused",
  async ({ storage }) => {
    const leases = storage.jobLeases;
    const tokens = [await grant(leases, "ingest", "a")];
    await leases.release("ingest", { token: tokens[0]! });
    tokens.push(await grant(leases, "ingest", "b"));
    await leases.release("ingest", { token: tokens[1]! });
    tokens.push(await grant(leases, "ingest", "a", SHORT));
    await outlive();
    tokens.push(await grant(leases, "ingest", "b"));
    assert.deepEqual(tokens, tokens.toSorted((x, y) => x - y));
    assert.equal(new Set(tokens).size, tokens.length, `tokens ${tokens.join(", ")}`);
  },
);

adapterTest(
  "renew keeps the token and moves the expiry, until the lease is granted to another",
  async ({ storage }) => {
    const leases = storage.jobLeases;
    const token = await grant(leases, "ingest", "a", SHORT);
    assert.equal(await leases.renew("ingest", { token, ttlMs: LONG }), true);
    await outlive();
    assert.equal(await leases.tryAcquire("ingest", { holder: "b", ttlMs: LONG }), null, "renewed for 60 s");
    assert.equal(await leases.checkFence({ job: "ingest", token }), true, "same token after renewal");
    assert.equal(await leases.renew("ingest", { token, ttlMs: SHORT }), true);
    await outlive();
    const newer = await grant(leases, "ingest", "b");
    assert.equal(await leases.renew("ingest", { token, ttlMs: LONG }), false, "a lost the lease");
    assert.equal(await leases.checkFence({ job: "ingest", token }), false);
    assert.equal(await leases.tryAcquire("ingest", { holder: "a", ttlMs: LONG }), null, "b still holds it");
    assert.equal(await leases.renew("ingest", { token: newer, ttlMs: LONG }), true);
  },
);

adapterTest("release frees the lease only with its current token", async ({ storage }) => {
  const leases = storage.jobLeases;
  const first = await grant(leases, "ingest", "a");
  await leases.release("ingest", { token: first + 1_000 });
  assert.equal(
    await leases.tryAcquire("ingest", { holder: "b", ttlMs: LONG }),
    null,
    "a wrong token frees nothing",
  );
  await leases.release("ingest", { token: first });
  assert.equal(
    await leases.renew("ingest", { token: first, ttlMs: LONG }),
    false,
    "a released lease is not renewed",
  );
  const second = await grant(leases, "ingest", "b");
  await leases.release("ingest", { token: first });
  assert.equal(
    await leases.tryAcquire("ingest", { holder: "c", ttlMs: LONG }),
    null,
    "a's late release kept b's",
  );
  assert.equal(await leases.checkFence({ job: "ingest", token: second }), true);
  await leases.release("never-taken", { token: 1 });
  await grant(leases, "never-taken", "c");
});

adapterTest("a fenced write is refused once a newer grant holds the job", async ({ storage }) => {
  const { jobLeases: leases, settings } = storage;
  const old = { job: "ingest", token: await grant(leases, "ingest", "a", SHORT) };
  assert.equal(await settings.putFenced("last_pass", { value: "a-1", fence: old }), true);
  assert.equal(await settings.putFenced("last_pass", { value: "a-2", fence: old }), true, "it replaces");
  assert.equal(await settings.get("last_pass"), "a-2");
  await outlive();
  const newer = { job: "ingest", token: await grant(leases, "ingest", "b") };
  assert.equal(await settings.putFenced("last_pass", { value: "b-1", fence: newer }), true);
  assert.equal(await settings.putFenced("last_pass", { value: "a-late", fence: old }), false);
  assert.equal(await settings.get("last_pass"), "b-1", "the late writer did not overwrite the newer run");
  await leases.release("ingest", { token: newer.token });
  assert.equal(await settings.putFenced("last_pass", { value: "b-2", fence: newer }), false, "released");
  const never = { job: "never-taken", token: 1 };
  assert.equal(await settings.putFenced("other", { value: "x", fence: never }), false);
  assert.equal(await settings.get("other"), null);
});

adapterTest(
  "a late writer racing a takeover never has the last word",
  { needs: "concurrency" },
  async (adapter) => {
    const other = await adapter.openAnother();
    for (let round = 0; round < 8; round++) {
      const job = `ingest-${round}`;
      const old = { job, token: await grant(adapter.storage.jobLeases, job, "a") };
      const late = Array.from(
        { length: 6 },
        (_, index) => adapter.storage.settings.putFenced(job, { value: `a-${index}`, fence: old }),
      );
      const takeover = (async () => {
        await other.jobLeases.release(job, { token: old.token });
        const newer = { job, token: await grant(other.jobLeases, job, "b") };
        assert.equal(await other.settings.putFenced(job, { value: "b", fence: newer }), true);
      })();
      await Promise.all([...late, takeover]);
      assert.equal(await adapter.storage.settings.get(job), "b", `round ${round}`);
    }
  },
);

adapterTest("leases of different jobs are independent", async ({ storage }) => {
  const leases = storage.jobLeases;
  const ingest = await grant(leases, "ingest", "a");
  await grant(leases, "scoring", "b");
  assert.equal(await leases.tryAcquire("ingest", { holder: "b", ttlMs: LONG }), null);
  assert.equal(await leases.tryAcquire("scoring", { holder: "a", ttlMs: LONG }), null);
  await leases.release("ingest", { token: ingest });
  assert.equal(
    await leases.tryAcquire("scoring", { holder: "a", ttlMs: LONG }),
    null,
    "releasing one job frees only that job",
  );
});

adapterTest("many holders racing from two instances for one lease: exactly one wins", {
  needs: "concurrency",
}, async (adapter) => {
  const handles = [adapter.storage.jobLeases, (await adapter.openAnother()).jobLeases];
  const contenders = Array.from({ length: 16 }, (_, index) => `holder-${index}`);
  const race = async (job: string, ttlMs: number) => {
    const results = await Promise.all(
      contenders.map((holder, index) => handles[index % 2]!.tryAcquire(job, { holder, ttlMs })),
    );
    return contenders.flatMap((holder, index) =>
      results[index] ? [{ holder, token: results[index].token }] : []
    );
  };
  for (const job of ["ingest", "scoring", "views"]) {
    const winners = await race(job, LONG);
    assert.equal(winners.length, 1, `${job}: winners ${winners.map((w) => w.holder).join(", ")}`);
    const others = contenders.filter((holder) => holder !== winners[0]!.holder);
    const late = await Promise.all(
      others.map((holder) => handles[0]!.tryAcquire(job, { holder, ttlMs: LONG })),
    );
    assert.ok(late.every((lease) => lease === null), `${job}: the winner holds the lease`);
  }
  const [first] = await race("expiring", SHORT);
  await outlive();
  const afterExpiry = await race("expiring", LONG);
  assert.equal(afterExpiry.length, 1, `after expiry: winners ${afterExpiry.map((w) => w.holder).join(", ")}`);
  assert.ok(afterExpiry[0]!.token > first!.token);
});
