import assert from "node:assert/strict";
import type { UsageReport } from "../../actors/usage/mod.ts";
import { usageCsv } from "../../routes/usage/usage.ts";

function report(values: (string | null)[]): UsageReport {
  const rows = values.map((value, i) => ({ day: "2026-11-20", value, spendMicro: BigInt(i), calls: 1 }));
  return {
    from: "2026-11-20",
    to: "2026-11-20",
    timeZone: "UTC",
    by: "model",
    rows,
    days: [{ day: "2026-11-20", spendMicro: 0n, calls: rows.length }],
    values: [],
    totals: { spendMicro: 0n, calls: rows.length },
  };
}

Deno.test("usage CSV escapes what a spreadsheet would run as a formula, and quotes what needs it", () => {
  const csv = usageCsv(
    report(['=HYPERLINK("http://x")', "+1", "-2", "@SUM(A1)", "\tx", "a,b", "plain", null]),
  );
  assert.deepEqual(csv.split("\r\n"), [
    "day,model,spendMicro,calls",
    `2026-11-20,"'=HYPERLINK(""http://x"")",0,1`,
    "2026-11-20,'+1,1,1",
    "2026-11-20,'-2,2,1",
    "2026-11-20,'@SUM(A1),3,1",
    "2026-11-20,'\tx,4,1",
    `2026-11-20,"a,b",5,1`,
    "2026-11-20,plain,6,1",
    "2026-11-20,,7,1",
    "",
  ]);
});
