import { type Context, Hono } from "hono";
import type { AskOrg } from "../../../actors/billing/mod.ts";
import type { Clock } from "../../../actors/kernel/mod.ts";
import { type UsageQuery, type UsageReport, usageReport } from "../../../actors/usage/mod.ts";
import type { ApiKeyStore } from "../../../storage/api_key_store.ts";
import type { BillingStore } from "../../../storage/billing_store.ts";
import type { UsageStore } from "../../../storage/usage_store.ts";
import { pageOf } from "../../billing/admin_orgs.ts";
import { pageSchema } from "../../billing/admin_orgs_api.ts";
import { sendBody } from "../../http/answer.ts";
import type { CursorCodec } from "../../http/cursor.ts";
import { parseOrThrow } from "../../http/validation.ts";
import { listOrgKeys } from "../../keys/admin_keys.ts";
import { pageHandler } from "../../pages/kit/error_page.tsx";
import { renderPage } from "../../pages/kit/render.ts";
import { usageCsv } from "../../usage/usage.ts";
import type { DashboardEnv } from "../dashboard_visit.ts";
import { homePage } from "../pages/home_page.tsx";
import { requireMember, signedInOf } from "../require_member.ts";
import { LedgerPage } from "./ledger_page.tsx";
import { lowBalanceBanner } from "./low_balance_banner.tsx";
import { readThresholdForm } from "./threshold_form.ts";
import { fieldProblemsOf, isFormRefusal } from "../pages/form_problems.tsx";
import { readUsageForm, usageQueryOf, usageSearch } from "./usage_form.ts";
import { UsagePage } from "./usage_page.tsx";
import { usageScriptRoutes } from "./usage_script.ts";

export interface UsagePageDeps {
  askOrg: AskOrg;
  /** The usage summary: the same report as `GET /v1/usage`. */
  usage: UsageStore;
  /** The ledger: the same read as the admin API's. */
  billing: Pick<BillingStore, "listLedger">;
  /** Key names (a breakdown by key shows them). */
  keys: ApiKeyStore;
  cursors: CursorCodec;
  clock: Clock;
}

const USAGE_PATH = "/dashboard/usage";
const LEDGER_PATH = "/dashboard/ledger";

type DashboardContext = Context<DashboardEnv>;

function page(render: (c: DashboardContext) => Promise<Response>) {
  return pageHandler((c) => render(c as unknown as DashboardContext));
}

/**
 * The usage view, its CSV, the ledger (every member) and the low-balance warning (owners set it;
 * every page shows its banner): docs/dashboard.md, "Usage, ledger and the low-balance warning".
 * Mounted before the other pages, so its banner middleware runs in front of all of them.
 */
export function usagePageRoutes(deps: UsagePageDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  const banner = lowBalanceBanner(deps.askOrg);
  app.use("/dashboard/*", banner);
  app.route("/", usageScriptRoutes());

  app.get(USAGE_PATH, requireMember(), page((c) => showUsage(c, deps)));
  app.get(
    `${USAGE_PATH}.csv`,
    requireMember(),
    page(async (c) => {
      const { query, report } = await reportOf(c, deps, usageQueryOf(readUsageForm(c), deps.clock()));
      const names = query.by === "key" ? await keyNames(c, deps) : undefined;
      return sendBody(c, usageCsv(report, names), 200, "text/csv; charset=utf-8", {
        "Content-Disposition": `attachment; filename="usage-${query.by}-${query.from}-${query.to}.csv"`,
      });
    }),
  );
  app.get(
    LEDGER_PATH,
    requireMember(),
    page(async (c) => {
      const { member } = signedInOf(c);
      const query = parseOrThrow(pageSchema, c.req.query(), "query");
      const ledger = await pageOf(deps.cursors, {
        query,
        scope: { list: "ledger", orgId: member.orgId },
        load: (p) => deps.billing.listLedger(member.orgId, p),
      });
      const org = await deps.askOrg(member.orgId, { type: "get" });
      return renderPage(
        c,
        <LedgerPage
          orgName={org.org.name}
          entries={ledger.items}
          olderHref={ledger.nextCursor === null
            ? null
            : `${LEDGER_PATH}?${new URLSearchParams({ cursor: ledger.nextCursor })}`}
          paged={query.cursor !== undefined}
        />,
      );
    }),
  );
  app.post(
    "/dashboard/low-balance",
    requireMember("owner"),
    page(async (c) => {
      const { member } = signedInOf(c);
      let form;
      try {
        form = await readThresholdForm(c);
      } catch (error) {
        if (!isFormRefusal(error)) throw error;
        const typed = String((await c.req.parseBody())["threshold"] ?? "");
        return homePage(c, deps, { threshold: typed, problems: fieldProblemsOf(error) }, 400);
      }
      await deps.askOrg(member.orgId, {
        type: "setLowBalance",
        thresholdMicro: form.thresholdMicro,
        by: { kind: "member", memberId: member.id },
      });
      return c.redirect("/dashboard", 303);
    }),
  );
  return app;
}

async function showUsage(c: DashboardContext, deps: UsagePageDeps): Promise<Response> {
  const { member } = signedInOf(c);
  const form = readUsageForm(c);
  const org = await deps.askOrg(member.orgId, { type: "get" });
  let shown: { query: UsageQuery; report: UsageReport };
  try {
    shown = await reportOf(c, deps, usageQueryOf(form, deps.clock()));
  } catch (error) {
    if (!isFormRefusal(error)) throw error;
    return renderPage(
      c,
      <UsagePage
        orgName={org.org.name}
        form={form}
        askBrowserZone={false}
        problems={fieldProblemsOf(error)}
        report={null}
        keyNames={new Map()}
        csvHref=""
      />,
      400,
    );
  }
  const { query, report } = shown;
  return renderPage(
    c,
    <UsagePage
      orgName={org.org.name}
      form={{ from: query.from, to: query.to, tz: form.tz, by: query.by }}
      askBrowserZone={c.req.query("tz") === undefined}
      problems={[]}
      report={report}
      keyNames={query.by === "key" ? await keyNames(c, deps) : new Map()}
      csvHref={`${USAGE_PATH}.csv?${usageSearch(query)}`}
    />,
  );
}

/** The report of the signed-in member's organisation for `query` (the one `GET /v1/usage` answers). */
async function reportOf(c: DashboardContext, deps: UsagePageDeps, query: UsageQuery) {
  return { query, report: await usageReport(deps.usage, signedInOf(c).member.orgId, query) };
}

/** The names of the organisation's keys, by key id. */
async function keyNames(c: DashboardContext, deps: UsagePageDeps): Promise<Map<string, string>> {
  const keys = await listOrgKeys(deps.keys, signedInOf(c).member.orgId);
  return new Map(keys.map((key) => [key.keyId, key.name]));
}
