import { type Context, Hono } from "hono";
import type { AskOrg } from "../../../actors/billing/mod.ts";
import { linkMessage } from "../../../actors/ceremony/mod.ts";
import { type Clock, isSs58Address, ServiceError } from "../../../actors/kernel/mod.ts";
import { leaseSpendReport } from "../../../actors/usage/mod.ts";
import type { MinerReport } from "../../../actors/scoring/miner_view.ts";
import type { MemberStore } from "../../../storage/member_store.ts";
import type { OrgStore } from "../../../storage/org_store.ts";
import type { UsageStore } from "../../../storage/usage_store.ts";
import { pageHandler } from "../../pages/kit/error_page.tsx";
import { renderPage } from "../../pages/kit/render.ts";
import type { DashboardEnv } from "../dashboard_visit.ts";
import { requireMember, requireSameOrg, signedInOf } from "../require_member.ts";
import { type HotkeyStepState, NO_STEP } from "./hotkey_steps.tsx";
import type { HotkeyCeremonyFor } from "./hotkey_ceremony_for.ts";
import {
  BindForm,
  checkForm,
  type FieldProblem,
  HotkeyForm,
  isRefusal,
  proofForm,
  rangeOf,
  readFields,
} from "./miner_forms.ts";
import { type MinerRow, MINERS_PATH, MinersPage } from "./miners_page.tsx";

export interface MinerRouteDeps {
  askOrg: AskOrg;
  orgs: Pick<OrgStore, "get" | "listMiners" | "minerRegistration">;
  members: Pick<MemberStore, "listMembers">;
  usage: Pick<UsageStore, "leaseCalls">;
  /** The miners' reports of the public pages: agent versions and scored predictions. */
  reports: { report(hotkey: string): Promise<MinerReport | null> };
  /** `FGW_LEASE_GRACE_MS`, for the lease outcome of the spend. */
  leaseGraceMs: number;
  /** The hotkey ceremony answering challenges issued to `expected` (its browser, ceremony, subject). */
  hotkeys: HotkeyCeremonyFor;
  clock: Clock;
}

type DashboardContext = Context<DashboardEnv>;

/** What a page of the miners shows besides the hotkeys: the link form's state and refusals. */
interface Shown {
  link?: HotkeyStepState;
  actionProblems?: FieldProblem[];
  status?: 200 | 400 | 409;
}

function page(render: (c: DashboardContext) => Promise<Response>) {
  return pageHandler((c) => render(c as unknown as DashboardContext));
}

/**
 * The organisation's miner hotkeys in the dashboard (docs/dashboard.md, "Miners"): the list, agent
 * versions, scored predictions and LLM spend for every member; for owners, linking a hotkey with a
 * signed proof (`HotkeyCeremony`, the challenge bound to the owner's session and organisation),
 * binding it to a member, and unlinking it, through the OrgActor, which writes the audit entries.
 */
export function minerRoutes(deps: MinerRouteDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.get(MINERS_PATH, requireMember(), page((c) => showMiners(c, deps, {})));
  app.post(`${MINERS_PATH}/link/challenge`, requireMember("owner"), page((c) => askLinkChallenge(c, deps)));
  app.post(`${MINERS_PATH}/link`, requireMember("owner"), page((c) => linkWithProof(c, deps)));
  app.post(
    `${MINERS_PATH}/:hotkey/bind`,
    requireMember("owner"),
    page(async (c) => bindHotkey(c, deps, await hotkeyOfPath(c, deps))),
  );
  app.post(
    `${MINERS_PATH}/:hotkey/unlink`,
    requireMember("owner"),
    page(async (c) => {
      const hotkey = await hotkeyOfPath(c, deps);
      await deps.askOrg(signedInOf(c).member.orgId, { type: "unregisterMiner", hotkey, by: memberOf(c) });
      return c.redirect(MINERS_PATH, 303);
    }),
  );
  return app;
}

/** The signed-in member, as the audit log names who asked. */
function memberOf(c: DashboardContext) {
  return { kind: "member" as const, memberId: signedInOf(c).member.id };
}

/** The hotkey of the path, of the signed-in member's organisation; 404 otherwise. */
async function hotkeyOfPath(c: DashboardContext, deps: MinerRouteDeps): Promise<string> {
  const hotkey = c.req.param("hotkey") ?? "";
  const registration = isSs58Address(hotkey) ? await deps.orgs.minerRegistration(hotkey) : null;
  requireSameOrg(c, registration?.orgId);
  return hotkey;
}

/** The link ceremony of the signed-in owner: challenges bound to its session and organisation. */
function linkCeremonyOf(c: DashboardContext, deps: MinerRouteDeps) {
  const { session, member } = signedInOf(c);
  const hotkeys = deps.hotkeys({ browser: session.id, purpose: "hotkey_link", subject: member.orgId });
  return { hotkeys, session: session.id, orgId: member.orgId };
}

/** Step 1: the typed hotkey checked, a link challenge issued, the message to sign shown. */
async function askLinkChallenge(c: DashboardContext, deps: MinerRouteDeps): Promise<Response> {
  const fields = await readFields(c);
  const checked = checkForm(HotkeyForm, fields);
  if (checked.value === null) {
    const link = { ...NO_STEP, hotkey: fields["hotkey"]?.trim() ?? "", problems: checked.problems };
    return showMiners(c, deps, { link, status: 400 });
  }
  const { hotkeys, session, orgId } = linkCeremonyOf(c, deps);
  const { hotkey } = checked.value;
  const challenge = await hotkeys.linkChallenge(session, orgId);
  const message = linkMessage({ origin: hotkeys.origin, orgId, challenge, hotkey });
  return showMiners(c, deps, { link: { hotkey, issued: { challenge, message }, problems: [] } });
}

/** Step 2: the pasted proof verified, then the hotkey registered with proof; refusals as the form again. */
async function linkWithProof(c: DashboardContext, deps: MinerRouteDeps): Promise<Response> {
  const fields = await readFields(c);
  const refused = (problems: FieldProblem[], status: 400 | 409 = 400) =>
    showMiners(c, deps, { link: { ...NO_STEP, hotkey: fields["hotkey"]?.trim() ?? "", problems }, status });
  const checked = proofForm(fields);
  if (checked.value === null) return refused(checked.problems);
  const { hotkeys, session, orgId } = linkCeremonyOf(c, deps);
  try {
    await hotkeys.verifyLink(session, checked.value, { orgId });
  } catch (error) {
    if (!isRefusal(error)) throw error;
    return refused([refusalProblem(error)]);
  }
  const { hotkey } = checked.value;
  try {
    await deps.askOrg(orgId, { type: "registerMiner", hotkey, proof: true, by: memberOf(c) });
  } catch (error) {
    if (!(error instanceof ServiceError) || error.code !== "conflict") throw error;
    return refused([{ field: "hotkey", problem: "Another organisation has this hotkey" }], 409);
  }
  return c.redirect(MINERS_PATH, 303);
}

/** Binds `hotkey` to the member the form picks, or to nobody; refusals as the page again, 400. */
async function bindHotkey(c: DashboardContext, deps: MinerRouteDeps, hotkey: string): Promise<Response> {
  const checked = checkForm(BindForm, await readFields(c));
  if (checked.value === null) return showMiners(c, deps, { actionProblems: checked.problems, status: 400 });
  const memberId = checked.value.memberId === "" ? null : checked.value.memberId;
  try {
    await deps.askOrg(signedInOf(c).member.orgId, { type: "bindMiner", hotkey, memberId, by: memberOf(c) });
  } catch (error) {
    if (!(error instanceof ServiceError) || !["not_found", "conflict"].includes(error.code)) throw error;
    const problem = { field: error.code === "not_found" ? "memberId" : "hotkey", problem: error.message };
    return showMiners(c, deps, { actionProblems: [problem], status: 400 });
  }
  return c.redirect(MINERS_PATH, 303);
}

/** A ceremony's refusal as the field it is about: the challenge, or the signature. */
export function refusalProblem(error: ServiceError): FieldProblem {
  return error.details?.["refused"] === "challenge"
    ? {
      field: "challenge",
      problem: "The challenge was used, expired or is not this browser's: get a new one",
    }
    : {
      field: "signature",
      problem:
        "The signature does not verify for this hotkey and message, and its challenge is used up: get a new challenge and sign its message",
    };
}

async function showMiners(c: DashboardContext, deps: MinerRouteDeps, shown: Shown): Promise<Response> {
  const { member } = signedInOf(c);
  const nowMs = deps.clock();
  const { range, problems: rangeProblems } = rangeOf(c.req.query(), nowMs);
  const [org, registrations, members] = await Promise.all([
    deps.orgs.get(member.orgId),
    deps.orgs.listMiners(member.orgId),
    deps.members.listMembers(member.orgId),
  ]);
  const miners: MinerRow[] = await Promise.all(registrations.map(async (registration) => {
    const report = await deps.reports.report(registration.hotkey);
    return {
      registration,
      isDefault: org?.defaultMinerHotkey === registration.hotkey,
      agents: report?.agents ?? { currentVersionId: null, versions: [] },
      scoredPredictions: report?.scoredEvents ?? null,
    };
  }));
  const spend = rangeProblems.length > 0 ? null : await leaseSpendReport(deps.usage, member.orgId, {
    from: range.from,
    to: range.to,
    timeZone: range.tz,
    nowMs,
    graceMs: deps.leaseGraceMs,
  });
  const status = shown.status ?? (rangeProblems.length > 0 ? 400 : 200);
  return renderPage(
    c,
    <MinersPage
      orgName={org?.name ?? member.orgId}
      role={member.role}
      miners={miners}
      members={members}
      csrfToken={c.get("visit").csrfToken()}
      link={shown.link ?? NO_STEP}
      actionProblems={shown.actionProblems ?? []}
      range={range}
      rangeProblems={rangeProblems}
      spend={spend}
    />,
    status,
  );
}
