/**
 * A Deno KV store whose usage records were written before the usage summary existed: the next
 * open puts them into it once, lease calls included, and later settles add to it as usual.
 */
import assert from "node:assert/strict";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import type { Storage } from "../../storage/storage.ts";
import { QUARTER_MS, USAGE_DIMENSIONS } from "../../storage/usage_store.ts";
import { seeded } from "../support/populated/world_random.ts";
import { ledgerDebits, type RandomCall, randomCalls, settleCalls } from "../support/usage_calls.ts";

const START = Date.UTC(2026, 3, 10);
const SPAN_MS = 86_400_000;
const WHOLE = { fromMs: START, toMs: START + SPAN_MS };

async function assertSummaryMatchesLedger(storage: Storage): Promise<void> {
  const ledger = await ledgerDebits(storage.billing, "org_a", WHOLE);
  const dayStarts = [WHOLE.fromMs / QUARTER_MS, WHOLE.toMs / QUARTER_MS];
  for (const dimension of USAGE_DIMENSIONS) {
    const rows = await storage.usage.daily("org_a", { dimension, dayStarts });
    assert.deepEqual(
      {
        spendMicro: rows.reduce((sum, row) => sum + row.spendMicro, 0n),
        calls: rows.reduce((sum, row) => sum + row.calls, 0),
      },
      ledger,
      dimension,
    );
  }
}

/** Calls of which every third names a lease. */
function callsWithLeases(label: string, count: number): RandomCall[] {
  return randomCalls(seeded(label), { count, fromMs: START, spanMs: SPAN_MS }).map((call, i) =>
    i % 3 ? call : {
      ...call,
      details: { ...call.details, metadata: { ...call.details.metadata, agentPredictionId: `ap_${i % 2}` } },
    }
  );
}

async function leaseCallCount(storage: Storage): Promise<number> {
  return (await storage.usage.leaseCalls("org_a", WHOLE)).reduce((sum, lease) => sum + lease.calls, 0);
}

Deno.test("opening a KV store puts the usage records stored before the summary into it, once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "fgw_kv_backfill_" });
  const path = `${dir}/store.sqlite`;
  try {
    const first = await openKvStorage(path);
    await first.orgs.create({ id: "org_a", name: "A", createdAtMs: 0 });
    await first.billing.commit("org_a", {
      atMs: 0,
      entry: { kind: "credit", amountMicro: 10n ** 12n, reference: "r" },
    });
    await settleCalls(first.billing, "org_a", callsWithLeases("kv backfill", 40), {
      batch: (i) => 1 + (i % 5),
    });
    await first.close();
    // What a store written by the previous version holds: no summary, no marker.
    const kv = await Deno.openKv(path);
    for (const prefix of [["usage_bucket"], ["usage_lease_call"], ["meta"]]) {
      for await (const entry of kv.list({ prefix })) await kv.delete(entry.key);
    }
    kv.close();

    const storage = await openKvStorage(path);
    try {
      await assertSummaryMatchesLedger(storage);
      assert.equal(await leaseCallCount(storage), 14);
      await settleCalls(storage.billing, "org_a", callsWithLeases("kv after backfill", 6), {
        batch: () => 1,
      });
      await assertSummaryMatchesLedger(storage);
      assert.equal(await leaseCallCount(storage), 16);
    } finally {
      await storage.close();
    }
    const again = await openKvStorage(path);
    try {
      await assertSummaryMatchesLedger(again);
    } finally {
      await again.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
