import assert from "node:assert/strict";
import type { Storage } from "../../storage/storage.ts";
import { QUARTER_MS, USAGE_DIMENSIONS, type UsageDimension } from "../../storage/usage_store.ts";
import type { UsageValue } from "../../storage/billing_store.ts";
import type { Claimed } from "../../storage/assignment_store.ts";
import { claimAll, seedQueue, submission } from "../support/assignments.ts";
import { adapterTest } from "../support/adapters.ts";
import { seeded } from "../support/populated/world_random.ts";
import {
  allUsage,
  ledgerDebits,
  randomCalls,
  reserveOf,
  settleCalls,
  settleOf,
  valueIn,
} from "../support/usage_calls.ts";

const START = Date.UTC(2026, 2, 28, 18);
const SPAN_MS = 3 * 86_400_000;
const START_Q = START / QUARTER_MS;
const SPAN_Q = SPAN_MS / QUARTER_MS;

async function fundedOrg(storage: Storage, orgId: string): Promise<void> {
  assert.ok(await storage.orgs.create({ id: orgId, name: orgId, createdAtMs: 0 }));
  assert.ok(
    await storage.billing.commit(orgId, {
      atMs: 0,
      entry: { kind: "credit", amountMicro: 10n ** 12n, reference: "top-up" },
    }),
  );
}

/** Random day bounds inside the calls' span (sometimes past either end): 2 to 6 of them. */
function randomDayStarts(random: () => number): number[] {
  const bounds = new Set<number>();
  const count = 2 + Math.floor(random() * 5);
  while (bounds.size < count) bounds.add(START_Q - 8 + Math.floor(random() * (SPAN_Q + 16)));
  return [...bounds].sort((a, b) => a - b);
}

/**
 * For each dimension: the days' sums add up to the ledger's debits over the whole range, and each
 * (day, value) is what its usage records add up to.
 */
async function checkRange(storage: Storage, orgId: string, dayStarts: number[]): Promise<void> {
  const range = { fromMs: dayStarts[0]! * QUARTER_MS, toMs: dayStarts.at(-1)! * QUARTER_MS };
  const ledger = await ledgerDebits(storage.billing, orgId, range);
  const records = await allUsage(storage.billing, orgId);
  for (const dimension of USAGE_DIMENSIONS) {
    const rows = await storage.usage.daily(orgId, { dimension, dayStarts });
    const total = rows.reduce(
      (sum, row) => ({ spendMicro: sum.spendMicro + row.spendMicro, calls: sum.calls + row.calls }),
      {
        spendMicro: 0n,
        calls: 0,
      },
    );
    assert.deepEqual(total, ledger, `${dimension} over ${JSON.stringify(dayStarts)}`);
    assert.deepEqual(
      new Map(rows.map((row) => [`${row.day}|${row.value}`, [row.spendMicro, row.calls]])),
      expectedCells(records, dimension, dayStarts),
    );
  }
}

/** The (day, value) cells the records make, summed by hand. */
function expectedCells(
  records: Parameters<typeof valueIn>[0][],
  dimension: UsageDimension,
  dayStarts: number[],
) {
  const cells = new Map<string, [bigint, number]>();
  for (const record of records) {
    const quarter = Math.floor(record.atMs / QUARTER_MS);
    const day = dayStarts.findLastIndex((start) => start <= quarter);
    if (day < 0 || day >= dayStarts.length - 1) continue;
    const id = `${day}|${valueIn(record, dimension)}`;
    const [spend, calls] = cells.get(id) ?? [0n, 0];
    cells.set(id, [spend + record.amountMicro, calls + 1]);
  }
  return cells;
}

adapterTest(
  "usage summary sums each dimension to the ledger's debits over any range of quarter-hours",
  async ({ storage }) => {
    const random = seeded("usage summary ranges");
    await Promise.all(["org_a", "org_b"].map((orgId) => fundedOrg(storage, orgId)));
    const calls = { count: 90, fromMs: START, spanMs: SPAN_MS };
    // Both orgs settle at the same time: on PostgreSQL their commits share grouped statements.
    await Promise.all([
      settleCalls(storage.billing, "org_a", randomCalls(random, calls), { batch: (i) => 1 + (i % 4) }),
      settleCalls(storage.billing, "org_b", randomCalls(random, { ...calls, count: 40 }), { batch: () => 1 }),
    ]);
    await checkRange(storage, "org_a", [START_Q - 1, START_Q + SPAN_Q + 1]);
    for (let i = 0; i < 8; i++) await checkRange(storage, i % 2 ? "org_b" : "org_a", randomDayStarts(random));
  },
);

adapterTest(
  "usage summary counts free calls and late settles, and nothing for holds and releases",
  async ({ storage }) => {
    await fundedOrg(storage, "org_a");
    const [free, late, released] = randomCalls(seeded("usage summary kinds"), {
      count: 3,
      fromMs: START,
      spanMs: 1,
    })
      .map((call, i) => ({ ...call, atMs: START + i, costMicro: i === 0 ? 0n : 500n, late: i === 1 }));
    await settleCalls(storage.billing, "org_a", [free!, late!], { batch: () => 1 });
    assert.ok(await storage.billing.commit("org_a", reserveOf(released!)));
    assert.ok(await storage.billing.commit("org_a", { atMs: START + 5, removeHoldId: released!.holdId }));
    assert.equal(
      await storage.billing.commit("org_a", settleOf(free!)),
      null,
      "a repeated settle is refused",
    );
    const rows = await storage.usage.daily("org_a", { dimension: "key", dayStarts: [START_Q, START_Q + 1] });
    assert.deepEqual(rows.reduce((sum, row) => sum + row.calls, 0), 2);
    assert.deepEqual(rows.reduce((sum, row) => sum + row.spendMicro, 0n), 500n);
    assert.deepEqual(
      await storage.usage.daily("org_b", { dimension: "key", dayStarts: [START_Q, START_Q + 1] }),
      [],
    );
  },
);

adapterTest("usage summary keeps a call on the quarter-hour of its settle", async ({ storage }) => {
  await fundedOrg(storage, "org_a");
  const [call] = randomCalls(seeded("usage summary edge"), { count: 1, fromMs: START, spanMs: 1 });
  await settleCalls(storage.billing, "org_a", [{ ...call!, atMs: START + QUARTER_MS - 1, late: false }], {
    batch: () => 1,
  });
  const daily = (dayStarts: number[]) => storage.usage.daily("org_a", { dimension: "model", dayStarts });
  assert.equal((await daily([START_Q, START_Q + 1])).length, 1);
  assert.deepEqual(await daily([START_Q + 1, START_Q + 2]), []);
  assert.deepEqual(await daily([START_Q - 1, START_Q]), []);
});

adapterTest(
  "usage store sums an org's validator completions of a time range per lease claim, with each lease as it stands",
  async ({ storage }) => {
    await fundedOrg(storage, "org_a");
    await seedQueue(storage, { miners: 2, events: 1 });
    const [first, second] = await claimAll(storage.assignments, "5Hvalidator1");
    const lease = (claimed: Claimed, atMs: number, extra: Record<string, UsageValue> = {}) =>
      randomCalls(seeded(`lease ${atMs}`), { count: 1, fromMs: atMs, spanMs: 1 }).map((call) => ({
        ...call,
        atMs,
        late: false,
        details: {
          ...call.details,
          minerHotkey: claimed.assignment.minerHotkey,
          metadata: {
            agentPredictionId: claimed.assignment.agentPredictionId,
            validatorHotkey: "5Hvalidator1",
            leasedAtMs: claimed.assignment.lease.leasedAtMs,
            ...extra,
          },
        },
      }))[0]!;
    const calls = [
      lease(first!, START),
      lease(first!, START + 10),
      lease(second!, START + 20),
      lease(second!, START + 30, { leasedAtMs: 1 }),
      lease(second!, START + 40, { leasedAtMs: null }),
      lease(second!, START + 5_000),
    ];
    await settleCalls(storage.billing, "org_a", calls, { batch: () => 2 });
    await storage.assignments.submit(first!.assignment.agentPredictionId, submission("5Hvalidator1"));
    const found = await storage.usage.leaseCalls("org_a", { fromMs: START, toMs: START + 5_000 });
    const claim = (claimed: Claimed) => claimed.assignment.lease;
    const sorted = found.toSorted((a, b) =>
      `${a.agentPredictionId}${a.leasedAtMs}`.localeCompare(`${b.agentPredictionId}${b.leasedAtMs}`)
    );
    const expected = [
      { claimed: first!, leasedAtMs: claim(first!).leasedAtMs, calls: [0, 1], status: "submitted" },
      { claimed: second!, leasedAtMs: 1, calls: [3], status: "in_progress" },
      { claimed: second!, leasedAtMs: claim(second!).leasedAtMs, calls: [2], status: "in_progress" },
      { claimed: second!, leasedAtMs: null, calls: [4], status: "in_progress" },
    ].map(({ claimed, leasedAtMs, calls: which, status }) => ({
      minerHotkey: claimed.assignment.minerHotkey,
      validatorHotkey: "5Hvalidator1",
      agentPredictionId: claimed.assignment.agentPredictionId,
      leasedAtMs,
      calls: which.length,
      spendMicro: which.reduce((sum, i) => sum + calls[i]!.costMicro, 0n),
      lease: {
        status,
        validatorHotkey: "5Hvalidator1",
        leasedAtMs: claim(claimed).leasedAtMs,
        expiresAtMs: claim(claimed).expiresAtMs,
      },
    })).toSorted((a, b) =>
      `${a.agentPredictionId}${a.leasedAtMs}`.localeCompare(`${b.agentPredictionId}${b.leasedAtMs}`)
    );
    assert.deepEqual(sorted, expected);
    assert.deepEqual(await storage.usage.leaseCalls("org_b", { fromMs: START, toMs: START + 5_001 }), []);
  },
);
