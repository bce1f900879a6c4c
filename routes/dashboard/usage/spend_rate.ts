import { usageReport } from "../../../actors/usage/mod.ts";
import type { UsageStore } from "../../../storage/usage_store.ts";
import { daysBefore, localDate } from "./usage_form.ts";

/** The days the home page's spend per day is the mean of: today (UTC) and the 6 before. */
export const SPEND_RATE_DAYS = 7;

export interface SpendRate {
  /** Σ of the calls settled on the UTC days `from` to `to` (today) ÷ their number, rounded down. */
  spendPerDayMicro: bigint;
  from: string;
  to: string;
  /** Days the available amount lasts at that rate (one decimal, rounded down); null when nothing is spent. */
  runwayDays: number | null;
}

/**
 * The organisation's spend per day and runway (docs/dashboard.md, "Home"), from the same usage
 * report as the usage view: the spend of today and the 6 UTC days before ÷ 7, and the available
 * amount ÷ that (0 when nothing is available).
 */
export async function spendRate(
  usage: Pick<UsageStore, "daily">,
  orgId: string,
  options: { nowMs: number; availableMicro: bigint },
): Promise<SpendRate> {
  const to = localDate(options.nowMs, "UTC");
  const from = daysBefore(to, SPEND_RATE_DAYS - 1);
  const report = await usageReport(usage, orgId, { from, to, timeZone: "UTC", by: "provider" });
  const spendPerDayMicro = report.totals.spendMicro / BigInt(SPEND_RATE_DAYS);
  if (spendPerDayMicro <= 0n) return { spendPerDayMicro, from, to, runwayDays: null };
  const available = options.availableMicro > 0n ? options.availableMicro : 0n;
  return { spendPerDayMicro, from, to, runwayDays: Number((available * 10n) / spendPerDayMicro) / 10 };
}
