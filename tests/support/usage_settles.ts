/** Completions settled at instants around the ends of local days, and the ledger's debits per local day. */
import assert from "node:assert/strict";
import { adminInit } from "./access.ts";
import { ECHO_CALL, FAKE_CALL, type GatewayWorld } from "../gateway/gateway_service.ts";

/** Settle instants around the ends of 2026-11-20 in Asia/Kathmandu (18:15Z) and Asia/Kolkata (18:30Z). */
export const SETTLES = [
  Date.UTC(2026, 10, 20, 12),
  Date.UTC(2026, 10, 20, 18, 14, 59, 999),
  Date.UTC(2026, 10, 20, 18, 15),
  Date.UTC(2026, 10, 20, 18, 29, 59, 999),
  Date.UTC(2026, 10, 20, 18, 30),
  Date.UTC(2026, 10, 21, 23, 59, 59, 999),
];

/** Completions settled at `SETTLES` (the clock is manual: a call settles at the instant it is made), echo and fake by turns. */
export async function callAtSettles(w: GatewayWorld): Promise<void> {
  for (const [i, at] of SETTLES.entries()) {
    w.service.clock.advance(at - w.service.clock.now());
    const response = await w.complete(i % 2 ? FAKE_CALL : ECHO_CALL);
    assert.equal(response.status, 200, await response.text());
  }
}

interface LedgerItem {
  at: string;
  kind: string;
  amountMicro: string;
}

/** −Σ of the org's ledger debits per local date of `timeZone`, the date read off each entry's time by `Intl`. */
export async function debitsPerDay(
  w: GatewayWorld,
  timeZone: string,
): Promise<Map<string, [string, number]>> {
  const response = await w.service.request(`/admin/v1/orgs/${w.orgId}/ledger?limit=200`, adminInit("GET"));
  const items = (await response.json()).items as LedgerItem[];
  const format = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  });
  const days = new Map<string, [string, number]>();
  for (const item of items.filter((entry) => entry.kind === "debit")) {
    const day = format.format(Date.parse(item.at));
    const [spend, calls] = days.get(day) ?? ["0", 0];
    days.set(day, [String(BigInt(spend) - BigInt(item.amountMicro)), calls + 1]);
  }
  return days;
}
