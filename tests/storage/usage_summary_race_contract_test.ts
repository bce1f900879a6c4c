/**
 * Settles racing on one org from two instances, all into the same buckets: none of their adds is
 * lost, and the summary still equals the ledger.
 */
import assert from "node:assert/strict";
import { QUARTER_MS, USAGE_DIMENSIONS } from "../../storage/usage_store.ts";
import { adapterTest } from "../support/adapters.ts";
import { seeded } from "../support/populated/world_random.ts";
import { ledgerDebits, randomCalls, reserveOf, settleOf } from "../support/usage_calls.ts";

const START = Date.UTC(2026, 7, 3, 9);

adapterTest(
  "usage summary loses no add when settles of one org race from two instances",
  { needs: "concurrency" },
  async ({ storage, openAnother }) => {
    const other = await openAnother();
    await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: 0 });
    await storage.billing.commit("org_a", {
      atMs: 0,
      entry: { kind: "credit", amountMicro: 10n ** 12n, reference: "r" },
    });
    // Every call in one quarter-hour, on one key and model: they all add to the same buckets.
    const calls = randomCalls(seeded("usage race"), { count: 48, fromMs: START, spanMs: QUARTER_MS })
      .map((call) => ({
        ...call,
        late: false,
        details: { ...call.details, keyId: "key_a", metadata: { ...call.details.metadata, model: "m" } },
      }));
    for (const call of calls) assert.ok(await storage.billing.commit("org_a", reserveOf(call)));
    const settles = calls.map((call, i) => {
      const store = (i % 2 ? other : storage).billing;
      // Some alone, some in pairs of one batch.
      if (i % 4 === 3) return Promise.resolve(null);
      if (i % 4 === 2) return store.commitBatch("org_a", [settleOf(call), settleOf(calls[i + 1]!)]);
      return store.commit("org_a", settleOf(call));
    });
    const done = await Promise.all(settles);
    assert.equal(done.filter((result) => result === null).length, calls.length / 4, "every settle committed");
    const ledger = await ledgerDebits(storage.billing, "org_a", { fromMs: START, toMs: START + QUARTER_MS });
    assert.equal(ledger.calls, calls.length);
    const quarter = START / QUARTER_MS;
    for (const dimension of USAGE_DIMENSIONS) {
      const rows = await other.usage.daily("org_a", { dimension, dayStarts: [quarter, quarter + 1] });
      assert.deepEqual(
        {
          spendMicro: rows.reduce((sum, row) => sum + row.spendMicro, 0n),
          calls: rows.reduce((sum, row) => sum + row.calls, 0),
        },
        ledger,
        dimension,
      );
    }
    const byKey = await storage.usage.daily("org_a", { dimension: "key", dayStarts: [quarter, quarter + 1] });
    assert.deepEqual(byKey.map((row) => [row.value, row.calls]), [["key_a", calls.length]]);
  },
);
