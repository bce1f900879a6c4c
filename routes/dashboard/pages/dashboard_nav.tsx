import type { MiddlewareHandler } from "hono";
import type { MemberRole } from "../../../storage/member_store.ts";
import { pageNoticeOf, setPageNotice } from "../../pages/kit/page_notice.tsx";
import type { DashboardEnv } from "../dashboard_visit.ts";
import { SignOutForm } from "./sign_out_form.tsx";

/** The dashboard's pages as its navigation lists them: path, label, and whether only owners see it. */
const DASHBOARD_LINKS: readonly [string, string, "owner"?][] = [
  ["/dashboard", "Home"],
  ["/dashboard/keys", "API keys"],
  ["/dashboard/usage", "Usage"],
  ["/dashboard/ledger", "Ledger"],
  ["/dashboard/members", "Members"],
  ["/dashboard/miners", "Miners"],
  ["/dashboard/passkeys", "Your passkeys"],
  ["/dashboard/audit", "Audit log", "owner"],
];

/**
 * Puts the dashboard's navigation (its pages, and signing out) at the top of every page a
 * signed-in member opens: mounted before the pages and the low-balance banner's middleware, which
 * adds the banner after it. Only page requests (HTML GETs) get it.
 */
export function dashboardNav(): MiddlewareHandler<DashboardEnv> {
  return async (c, next) => {
    const visit = c.get("visit");
    const signedIn = visit.signedIn;
    if (signedIn && c.req.method === "GET" && (c.req.header("accept") ?? "").includes("text/html")) {
      const nav = (
        <DashboardNav path={c.req.path} role={signedIn.member.role} csrfToken={visit.csrfToken()} />
      );
      setPageNotice(c, <>{pageNoticeOf(c) ?? ""}{nav}</>);
    }
    await next();
  };
}

function DashboardNav(props: { path: string; role: MemberRole; csrfToken: string }) {
  const links = DASHBOARD_LINKS.filter(([, , only]) => only === undefined || only === props.role);
  return (
    <nav class="dashboard-nav" aria-label="Dashboard">
      <ul>
        {links.map(([href, label]) => (
          <li>
            <a href={href} aria-current={props.path === href ? "page" : undefined}>{label}</a>
          </li>
        ))}
        <li>
          <SignOutForm csrfToken={props.csrfToken} buttonClass="link-button" />
        </li>
      </ul>
    </nav>
  );
}
