import { jsonLogger, type Logger } from "../kernel/mod.ts";
import type { AskOrg } from "./org_messages.ts";
import type { PeriodicJob } from "../runtime/mod.ts";
import type { BillingStore, ExpiredHold } from "../../storage/billing_store.ts";

export interface HoldExpiryJobOptions {
  billing: BillingStore;
  /** Releases go through each org's actor, which owns the balance. */
  askOrg: AskOrg;
  intervalMs: number;
  /** Holds released per page; the run continues while pages come back full. */
  pageSize?: number;
  /** Where a failed release is reported, one warn line per hold (default: JSON lines on stderr). */
  log?: Logger;
}

/**
 * Releases holds past their expiry (calls that never settled) so their money is available again.
 * Idempotent: a hold already settled or released is skipped by its OrgActor; a re-run after a
 * crash finds only the holds still stored. A release that fails is logged and counted, and the run
 * goes on past it (pages are keyset pages, so a hold that stays stored does not stop the run); the
 * run then fails with the count, so the scheduler reports it, and the next run tries again.
 */
export function holdExpiryJob(options: HoldExpiryJobOptions): PeriodicJob {
  const pageSize = options.pageSize ?? 500;
  const log = options.log ?? jsonLogger("warn");
  return {
    name: "hold_expiry",
    intervalMs: () => options.intervalMs,
    run: async (nowMs, { signal }) => {
      let failed = 0;
      let after: ExpiredHold | undefined;
      while (!signal.aborted) {
        const page = await options.billing.listExpiredHolds(nowMs, {
          limit: pageSize,
          ...(after ? { after } : {}),
        });
        failed += await releaseAll(page, { askOrg: options.askOrg, log, signal });
        after = page.at(-1);
        if (page.length < pageSize) break;
      }
      if (failed > 0) throw new Error(`Cannot release ${failed} expired hold(s): see the warnings logged`);
    },
  };
}

/**
 * Releases each hold through its org's actor; logs each failure and returns how many failed. A
 * release is must-complete: when the run stops waiting (its signal, or the actor's timeout), the
 * release still goes through.
 */
async function releaseAll(
  holds: ExpiredHold[],
  options: { askOrg: AskOrg; log: Logger; signal: AbortSignal | undefined },
): Promise<number> {
  const { askOrg, signal } = options;
  const results = await Promise.allSettled(
    holds.map(({ orgId, holdId }) => askOrg(orgId, { type: "release", holdId }, signal ? { signal } : {})),
  );
  let failed = 0;
  results.forEach((result, i) => {
    if (result.status === "fulfilled") return;
    failed++;
    const { orgId, holdId } = holds[i]!;
    options.log({
      level: "warn",
      msg: "cannot release expired hold",
      orgId,
      holdId,
      error: String(result.reason),
    });
  });
  return failed;
}
