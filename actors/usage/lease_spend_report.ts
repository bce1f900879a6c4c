/**
 * The LLM spend of an organisation's miners, by the validator that made the calls and by what
 * became of the lease they were made for (docs/billing.md, "Usage"): the validator completions the
 * org paid for, settled in a range of local days.
 */
import type { LeaseCalls, UsageStore } from "../../storage/usage_store.ts";
import { localDays } from "./local_days.ts";
import { byValue, type Spend } from "./usage_report.ts";
import { QUARTER_MS } from "../../storage/usage_store.ts";

/**
 * What became of the lease a call was made for: its prediction was submitted under that claim,
 * or the claim ended without one (expired, or taken over by a later claim), or it is still live.
 */
export type LeaseOutcome = "submitted" | "expired" | "live";

const OUTCOMES: readonly LeaseOutcome[] = ["submitted", "expired", "live"];

/** A range of local days. */
export interface DaysQuery {
  from: string;
  to: string;
  timeZone: string;
}

/** The spend of one miner's calls made by one validator, with one outcome. */
export interface LeaseSpendRow extends Spend {
  minerHotkey: string | null;
  validatorHotkey: string | null;
  outcome: LeaseOutcome;
  /** The lease claims these calls were made under. */
  leases: number;
}

/** One miner's spend over the range, by validator and by outcome. */
export interface MinerLeaseSpend extends Spend {
  minerHotkey: string | null;
  byValidator: (Spend & { validatorHotkey: string | null })[];
  byOutcome: (Spend & { outcome: LeaseOutcome; leases: number })[];
}

export interface LeaseSpendReport extends DaysQuery {
  /** By miner, then validator (code-unit order, none last), then outcome (submitted, expired, live). */
  rows: LeaseSpendRow[];
  miners: MinerLeaseSpend[];
  totals: Spend;
}

/** The lease-outcome rule: `graceMs` is the lease grace a submission has (`FGW_LEASE_GRACE_MS`). */
export function leaseOutcome(calls: LeaseCalls, at: { nowMs: number; graceMs: number }): LeaseOutcome {
  const { lease } = calls;
  if (!lease) return "expired";
  const sameClaim = calls.leasedAtMs === null
    ? lease.validatorHotkey === calls.validatorHotkey
    : lease.leasedAtMs === calls.leasedAtMs;
  if (!sameClaim) return "expired";
  if (lease.status === "submitted" || lease.status === "scored") return "submitted";
  const live = lease.status === "in_progress" && lease.expiresAtMs !== null &&
    at.nowMs <= lease.expiresAtMs + at.graceMs;
  return live ? "live" : "expired";
}

/** The lease-spend report of `orgId` for the local days of `query`, as of `at.nowMs`. */
export async function leaseSpendReport(
  usage: Pick<UsageStore, "leaseCalls">,
  orgId: string,
  query: DaysQuery & { nowMs: number; graceMs: number },
): Promise<LeaseSpendReport> {
  const { starts } = localDays(query, query.timeZone);
  const calls = await usage.leaseCalls(orgId, {
    fromMs: starts[0]! * QUARTER_MS,
    toMs: starts.at(-1)! * QUARTER_MS,
  });
  const rows = new Map<string, LeaseSpendRow>();
  for (const call of calls) {
    const outcome = leaseOutcome(call, query);
    const id = JSON.stringify([call.minerHotkey, call.validatorHotkey, outcome]);
    let row = rows.get(id);
    if (!row) {
      const { minerHotkey, validatorHotkey } = call;
      rows.set(id, row = { minerHotkey, validatorHotkey, outcome, leases: 0, spendMicro: 0n, calls: 0 });
    }
    row.leases++;
    row.spendMicro += call.spendMicro;
    row.calls += call.calls;
  }
  const sorted = [...rows.values()].toSorted(byMinerValidatorOutcome);
  const { from, to, timeZone } = query;
  return { from, to, timeZone, rows: sorted, miners: minersOf(sorted), totals: sumOf(sorted) };
}

/** Each miner's sums, from rows in report order. */
function minersOf(rows: readonly LeaseSpendRow[]): MinerLeaseSpend[] {
  const miners = Map.groupBy(rows, (row) => row.minerHotkey);
  return [...miners.entries()].map(([minerHotkey, own]) => ({
    minerHotkey,
    ...sumOf(own),
    byValidator: [...Map.groupBy(own, (row) => row.validatorHotkey).entries()]
      .map(([validatorHotkey, some]) => ({ validatorHotkey, ...sumOf(some) })),
    byOutcome: OUTCOMES.map((outcome) => {
      const some = own.filter((row) => row.outcome === outcome);
      return { outcome, leases: some.reduce((sum, row) => sum + row.leases, 0), ...sumOf(some) };
    }),
  }));
}

function sumOf(rows: readonly Spend[]): Spend {
  return {
    spendMicro: rows.reduce((sum, row) => sum + row.spendMicro, 0n),
    calls: rows.reduce((sum, row) => sum + row.calls, 0),
  };
}

function byMinerValidatorOutcome(a: LeaseSpendRow, b: LeaseSpendRow): number {
  return byValue({ value: a.minerHotkey }, { value: b.minerHotkey }) ||
    byValue({ value: a.validatorHotkey }, { value: b.validatorHotkey }) ||
    OUTCOMES.indexOf(a.outcome) - OUTCOMES.indexOf(b.outcome);
}
