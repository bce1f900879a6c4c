import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AskOrg, LowBalanceReply } from "../../../actors/billing/mod.ts";
import type { Clock } from "../../../actors/kernel/mod.ts";
import type { UsageStore } from "../../../storage/usage_store.ts";
import { Layout } from "../../pages/kit/layout.tsx";
import { renderPage } from "../../pages/kit/render.ts";
import type { DashboardEnv } from "../dashboard_visit.ts";
import type { FieldProblem } from "./form_problems.tsx";
import { signedInOf } from "../require_member.ts";
import { FieldError, FormProblems, problemOf } from "./form_problems.tsx";
import { type SpendRate, spendRate } from "../usage/spend_rate.ts";
import { creditAmount } from "./credit_amount.ts";
import { SignOutForm } from "./sign_out_form.tsx";

export interface HomePageDeps {
  askOrg: AskOrg;
  usage: Pick<UsageStore, "daily">;
  clock: Clock;
}

/** The low-balance form as an owner typed it, with what was refused (shown again with 400). */
export interface ThresholdForm {
  threshold: string;
  problems: FieldProblem[];
}

/**
 * `GET /dashboard`: the member's organisation, its credit (from its OrgActor), spend per day and
 * runway, the low-balance warning (owners set it here), the member's role, links.
 */
export async function homePage(
  c: Context<DashboardEnv>,
  deps: HomePageDeps,
  form: ThresholdForm | null = null,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  const { member } = signedInOf(c);
  const [{ org, balance }, warning] = await Promise.all([
    deps.askOrg(member.orgId, { type: "get" }),
    deps.askOrg(member.orgId, { type: "lowBalance" }),
  ]);
  const rate = await spendRate(deps.usage, member.orgId, {
    nowMs: deps.clock(),
    availableMicro: balance.availableMicro,
  });
  const csrfToken = c.get("visit").csrfToken();
  return renderPage(
    c,
    <Layout title={`Dashboard · ${org.name}`} path="/dashboard">
      <h1>{org.name}</h1>
      <p>
        Signed in as <strong>{member.displayName}</strong>,{" "}
        {member.role === "owner" ? "an owner" : "a viewer"} of this organisation.
      </p>
      <h2>Credit</h2>
      <dl class="figures">
        <div>
          <dt>Balance</dt>
          <dd data-balance-micro={balance.balanceMicro.toString()}>{creditAmount(balance.balanceMicro)}</dd>
        </div>
        <div>
          <dt>Held by calls in flight</dt>
          <dd data-held-micro={balance.heldMicro.toString()}>{creditAmount(balance.heldMicro)}</dd>
        </div>
        <div>
          <dt>Available</dt>
          <dd data-available-micro={balance.availableMicro.toString()}>
            {creditAmount(balance.availableMicro)}
          </dd>
        </div>
        <SpendFigures rate={rate} />
      </dl>
      <LowBalanceSection
        warning={warning}
        owner={member.role === "owner"}
        csrfToken={csrfToken}
        form={form}
      />
      <h2>Manage</h2>
      <ul>
        <li>
          <a href="/dashboard/keys">API keys</a>
        </li>
        <li>
          <a href="/dashboard/usage">Usage</a>
        </li>
        <li>
          <a href="/dashboard/ledger">Ledger</a>
        </li>
        <li>
          <a href="/dashboard/members">Members</a> · <a href="/dashboard/passkeys">Your passkeys</a>
          {member.role === "owner"
            ? (
              <>
                {" · "}
                <a href="/dashboard/audit">Audit log</a>
              </>
            )
            : ""}
        </li>
        <li>
          <a href="/dashboard/miners">Miners and hotkeys</a>
        </li>
      </ul>
      <SignOutForm csrfToken={csrfToken} />
    </Layout>,
    status,
  );
}

function SpendFigures(props: { rate: SpendRate }) {
  const { rate } = props;
  return (
    <>
      <div>
        <dt>Spend per day (mean of {rate.from} to {rate.to}, UTC)</dt>
        <dd data-spend-per-day-micro={rate.spendPerDayMicro.toString()}>
          {creditAmount(rate.spendPerDayMicro)}
        </dd>
      </div>
      <div>
        <dt>Runway at that spend</dt>
        <dd data-runway-days={rate.runwayDays === null ? "" : String(rate.runwayDays)}>
          {rate.runwayDays === null ? "— (nothing spent)" : `${rate.runwayDays.toFixed(1)} days`}
        </dd>
      </div>
    </>
  );
}

function LowBalanceSection(
  props: { warning: LowBalanceReply; owner: boolean; csrfToken: string; form: ThresholdForm | null },
) {
  const { warning, form } = props;
  const problems = form?.problems ?? [];
  const problem = problemOf(problems, "threshold");
  const typed = form?.threshold ??
    (warning.thresholdMicro === null ? "" : creditAmount(warning.thresholdMicro));
  return (
    <section aria-labelledby="low-balance">
      <h2 id="low-balance">Low-balance warning</h2>
      <p data-threshold-micro={warning.thresholdMicro?.toString() ?? ""}>
        {warning.thresholdMicro === null
          ? "No warning is set."
          : `Every dashboard page shows a warning while less than ${
            creditAmount(warning.thresholdMicro)
          } credits are available.`}
      </p>
      {props.owner
        ? (
          <>
            <FormProblems problems={problems} what="The warning was not changed" />
            <form method="post" action="/dashboard/low-balance">
              <input type="hidden" name="_csrf" value={props.csrfToken} />
              <p>
                <label for="low-balance-threshold">Warn below (credits)</label>
                <input
                  id="low-balance-threshold"
                  name="threshold"
                  type="text"
                  inputmode="decimal"
                  value={typed}
                  aria-invalid={problem ? "true" : undefined}
                  aria-describedby={problem ? "low-balance-threshold-error" : undefined}
                />
                <FieldError id="low-balance-threshold-error" problem={problem} />
              </p>
              <p>
                <button type="submit">Set the warning</button>{" "}
                {warning.thresholdMicro === null ? "" : (
                  <button type="submit" name="clear" value="1">
                    Clear the warning
                  </button>
                )}
              </p>
            </form>
          </>
        )
        : <p>Only an owner of the organisation can set or clear it.</p>}
    </section>
  );
}
