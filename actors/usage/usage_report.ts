/**
 * An organisation's spend and calls per local day and dimension value (docs/billing.md, "Usage"),
 * folded from the usage summary: what `GET /v1/usage` answers and the dashboard shows.
 */
import type { DayUsage, UsageDimension, UsageStore } from "../../storage/usage_store.ts";
import { localDays } from "./local_days.ts";

/** What a usage query asks: the local days `from` to `to` (inclusive) of `timeZone`, by `by`. */
export interface UsageQuery {
  from: string;
  to: string;
  timeZone: string;
  by: UsageDimension;
}

/** Spend (micro-units) and calls. */
export interface Spend {
  spendMicro: bigint;
  calls: number;
}

/** One day and value with calls. `value` is null for calls that had none (a validator completion has no key). */
export interface UsageRow extends Spend {
  day: string;
  value: string | null;
}

export interface UsageReport extends UsageQuery {
  /** The (day, value) pairs with calls: by day, then value (code-unit order, none last). */
  rows: UsageRow[];
  /** Every day of the range, with calls or not, in order (the chart's axis). */
  days: (Spend & { day: string })[];
  /** Each value's sums over the range, in the rows' value order. */
  values: (Spend & { value: string | null })[];
  totals: Spend;
}

/** The usage report of `orgId` for `query` (its dates and zone already validated). */
export async function usageReport(
  usage: Pick<UsageStore, "daily">,
  orgId: string,
  query: UsageQuery,
): Promise<UsageReport> {
  const { days, starts } = localDays(query, query.timeZone);
  const cells = (await usage.daily(orgId, { dimension: query.by, dayStarts: starts })).toSorted(
    byDayThenValue,
  );
  const perDay = days.map((day) => ({ day, spendMicro: 0n, calls: 0 }));
  const perValue = new Map<string | null, Spend & { value: string | null }>();
  const rows = cells.map((cell) => {
    const row = {
      day: days[cell.day]!,
      value: cell.value || null,
      spendMicro: cell.spendMicro,
      calls: cell.calls,
    };
    add(perDay[cell.day]!, row);
    let sum = perValue.get(row.value);
    if (!sum) perValue.set(row.value, sum = { value: row.value, spendMicro: 0n, calls: 0 });
    add(sum, row);
    return row;
  });
  const totals = { spendMicro: 0n, calls: 0 };
  for (const day of perDay) add(totals, day);
  return { ...query, rows, days: perDay, values: [...perValue.values()].toSorted(byValue), totals };
}

function add(sum: Spend, more: Spend): void {
  sum.spendMicro += more.spendMicro;
  sum.calls += more.calls;
}

function byDayThenValue(a: DayUsage, b: DayUsage): number {
  return a.day - b.day || byValue({ value: a.value || null }, { value: b.value || null });
}

/** Values in code-unit order, none (null) last. */
export function byValue(a: { value: string | null }, b: { value: string | null }): number {
  if (a.value === b.value) return 0;
  if (a.value === null) return 1;
  if (b.value === null) return -1;
  return a.value < b.value ? -1 : 1;
}
