import type { Context } from "hono";
import type { AskOrg } from "../../../actors/billing/mod.ts";
import { Layout } from "../../pages/kit/layout.tsx";
import { renderPage } from "../../pages/kit/render.ts";
import type { DashboardEnv } from "../dashboard_visit.ts";
import { signedInOf } from "../require_member.ts";
import { creditAmount } from "./credit_amount.ts";
import { SignOutForm } from "./sign_out_form.tsx";

export interface HomePageDeps {
  askOrg: AskOrg;
}

/** `GET /dashboard`: the member's organisation, its credit (from its OrgActor), the member's role, links. */
export async function homePage(c: Context<DashboardEnv>, deps: HomePageDeps): Promise<Response> {
  const { member } = signedInOf(c);
  const { org, balance } = await deps.askOrg(member.orgId, { type: "get" });
  return renderPage(
    c,
    <Layout title={`Dashboard · ${org.name}`} path="/dashboard">
      <h1>{org.name}</h1>
      <p>
        Signed in as <strong>{member.displayName}</strong>,{" "}
        {member.role === "owner" ? "an owner" : "a viewer"} of this organisation.
      </p>
      <h2>Credit</h2>
      <dl>
        <dt>Balance</dt>
        <dd data-balance-micro={balance.balanceMicro.toString()}>{creditAmount(balance.balanceMicro)}</dd>
        <dt>Held by calls in flight</dt>
        <dd data-held-micro={balance.heldMicro.toString()}>{creditAmount(balance.heldMicro)}</dd>
        <dt>Available</dt>
        <dd data-available-micro={balance.availableMicro.toString()}>
          {creditAmount(balance.availableMicro)}
        </dd>
      </dl>
      <h2>Manage</h2>
      <ul>
        <li>
          <a href="/dashboard/keys">API keys</a>
        </li>
        <li>
          <a href="/dashboard/miners">Miners and hotkeys</a>
        </li>
      </ul>
      <SignOutForm csrfToken={c.get("visit").csrfToken()} />
    </Layout>,
  );
}
