import type { MiddlewareHandler } from "hono";
import type { AskOrg, LowBalanceReply } from "../../../actors/billing/mod.ts";
import { pageNoticeOf, setPageNotice } from "../../pages/kit/page_notice.tsx";
import { creditAmount } from "../pages/credit_amount.ts";
import type { DashboardEnv } from "../dashboard_visit.ts";

/**
 * Adds the low-balance banner (after any notice already set: the navigation) to every dashboard page a signed-in member opens while the
 * organisation's available amount is below the threshold an owner set (page_notice.tsx: the
 * layout shows it first in the page). Only page requests (HTML) ask the OrgActor.
 */
export function lowBalanceBanner(askOrg: AskOrg): MiddlewareHandler<DashboardEnv> {
  return async (c, next) => {
    const signedIn = c.get("visit").signedIn;
    if (signedIn && c.req.method === "GET" && (c.req.header("accept") ?? "").includes("text/html")) {
      const warning = await askOrg(signedIn.member.orgId, { type: "lowBalance" });
      if (warning.below) {
        setPageNotice(
          c,
          <>
            {pageNoticeOf(c) ?? ""}
            <LowBalanceBanner warning={warning} />
          </>,
        );
      }
    }
    await next();
  };
}

function LowBalanceBanner(props: { warning: LowBalanceReply }) {
  const { warning } = props;
  return (
    <p class="banner" role="status" id="low-balance-banner">
      <strong>Low balance:</strong> {creditAmount(warning.availableMicro)}{" "}
      credits available, below the warning threshold of {creditAmount(warning.thresholdMicro ?? 0n)}{" "}
      credits. Calls are refused once nothing is available; ask the operator for a top-up.
    </p>
  );
}
