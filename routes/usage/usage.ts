import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Clock } from "../../actors/kernel/mod.ts";
import {
  type LeaseSpendReport,
  leaseSpendReport,
  type UsageReport,
  usageReport,
} from "../../actors/usage/mod.ts";
import type { UsageStore } from "../../storage/usage_store.ts";
import type { ApiKeyAccess, KeyEnv } from "../middleware/api_key_auth.ts";
import { openApiApp } from "../http/openapi.ts";
import { sendBody, sendJson } from "../http/answer.ts";
import { toCsv } from "../http/csv.ts";
import { leaseSpendRoute, usageRoute } from "./usage_api.ts";

export interface UsageRoutesDeps {
  access: ApiKeyAccess;
  usage: UsageStore;
  clock: Clock;
  /** `FGW_LEASE_GRACE_MS`: how long after its expiry a lease still takes its submission. */
  leaseGraceMs: number;
}

const CSV = "text/csv; charset=utf-8";

/**
 * `GET /v1/usage` and `GET /v1/usage/leases` (scope billing:read), mounted at `/v1/usage`: the
 * key's organisation's spend per local day by dimension, and its miners' LLM spend by validator and
 * lease outcome (docs/billing.md, "Usage"). Read from the usage summary on every request (never
 * cached: a settle shows at once); `format=csv` answers exactly the report's `rows`.
 */
export function usageRoutes(deps: UsageRoutesDeps): OpenAPIHono<KeyEnv> {
  return openApiApp<KeyEnv>()
    .openapi(usageRoute(deps.access), async (c) => {
      const { format, tz, ...query } = c.req.valid("query");
      const report = await usageReport(deps.usage, c.get("apiKey").orgId, { ...query, timeZone: tz });
      if (format === "csv") return csv(c, `usage-${report.by}`, report, usageCsv(report));
      return sendJson(c, usageJson(report), 200);
    })
    .openapi(leaseSpendRoute(deps.access), async (c) => {
      const { format, tz, ...query } = c.req.valid("query");
      const report = await leaseSpendReport(deps.usage, c.get("apiKey").orgId, {
        ...query,
        timeZone: tz,
        nowMs: deps.clock(),
        graceMs: deps.leaseGraceMs,
      });
      if (format === "csv") return csv(c, "lease-spend", report, leaseCsv(report));
      return sendJson(c, leaseJson(report), 200);
    });
}

function csv(c: Context, name: string, range: { from: string; to: string }, body: string) {
  return sendBody(c, body, 200, CSV, {
    "Content-Disposition": `attachment; filename="${name}-${range.from}-${range.to}.csv"`,
  });
}

/** Money as decimal strings (docs/conventions.md, "Values"). */
function spendJson(spend: { spendMicro: bigint; calls: number }) {
  return { spendMicro: spend.spendMicro.toString(), calls: spend.calls };
}

export function usageJson(report: UsageReport) {
  return {
    from: report.from,
    to: report.to,
    tz: report.timeZone,
    by: report.by,
    rows: report.rows.map((row) => ({ day: row.day, value: row.value, ...spendJson(row) })),
    days: report.days.map((day) => ({ day: day.day, ...spendJson(day) })),
    values: report.values.map((value) => ({ value: value.value, ...spendJson(value) })),
    totals: spendJson(report.totals),
  };
}

/**
 * The report's rows: `day`, the dimension (named after it), `spendMicro`, `calls`; with `keyNames`
 * (a breakdown by key), each key's name after its id, as `keyName`.
 */
export function usageCsv(report: UsageReport, keyNames?: ReadonlyMap<string, string>): string {
  const rows = usageJson(report).rows.map((row) => ({
    ...row,
    [report.by]: row.value,
    keyName: row.value === null ? null : keyNames?.get(row.value) ?? null,
  }));
  const columns = ["day", report.by, ...(keyNames ? ["keyName"] : []), "spendMicro", "calls"];
  return toCsv(columns as (keyof typeof rows[number] & string)[], rows);
}

export function leaseJson(report: LeaseSpendReport) {
  return {
    from: report.from,
    to: report.to,
    tz: report.timeZone,
    rows: report.rows.map((row) => ({
      minerHotkey: row.minerHotkey,
      validatorHotkey: row.validatorHotkey,
      outcome: row.outcome,
      leases: row.leases,
      ...spendJson(row),
    })),
    miners: report.miners.map((miner) => ({
      minerHotkey: miner.minerHotkey,
      ...spendJson(miner),
      byValidator: miner.byValidator.map((each) => ({
        validatorHotkey: each.validatorHotkey,
        ...spendJson(each),
      })),
      byOutcome: miner.byOutcome.map((each) => ({
        outcome: each.outcome,
        leases: each.leases,
        ...spendJson(each),
      })),
    })),
    totals: spendJson(report.totals),
  };
}

export function leaseCsv(report: LeaseSpendReport): string {
  const columns = ["minerHotkey", "validatorHotkey", "outcome", "leases", "spendMicro", "calls"] as const;
  return toCsv(columns, leaseJson(report).rows);
}
