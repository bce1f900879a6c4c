import { type Context, Hono } from "hono";
import { signInMessage } from "../../../actors/ceremony/mod.ts";
import type { OrgStore } from "../../../storage/org_store.ts";
import { pageHandler } from "../../pages/kit/error_page.tsx";
import type { DashboardEnv } from "../dashboard_visit.ts";
import { HOTKEY_SIGN_IN_PATHS, renderSignInPage } from "../pages/sign_in_page.tsx";
import { startSession } from "../require_member.ts";
import { HOME_PATH } from "../wiring/passkey_wiring.ts";
import type { HotkeyCeremonyFor } from "./hotkey_ceremony_for.ts";
import { NO_STEP } from "./hotkey_steps.tsx";
import { checkForm, HotkeyForm, isRefusal, proofForm, readFields } from "./miner_forms.ts";
import { refusalProblem } from "./miner_routes.tsx";

export interface HotkeySignInDeps {
  hotkeys: HotkeyCeremonyFor;
  orgs: Pick<OrgStore, "minerRegistration">;
}

type DashboardContext = Context<DashboardEnv>;

function page(render: (c: DashboardContext) => Promise<Response>) {
  return pageHandler((c) => render(c as unknown as DashboardContext));
}

/** Said for a hotkey registered without proof and for one bound to nobody alike. */
const CANNOT_SIGN_IN =
  "This hotkey cannot sign in: ask an owner of your organisation to link it and bind it to you";

/**
 * Signing in with a miner hotkey, without JavaScript: the hotkey typed, a challenge bound to the
 * browser's pre-session, the signature pasted back (`HotkeyCeremony.verifySignIn`). A verified
 * hotkey signs in as the member an owner bound it to, with that member's role; a hotkey registered
 * without proof or bound to nobody never signs in, and the refusal does not say which.
 */
export function hotkeySignInRoutes(deps: HotkeySignInDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.post(
    HOTKEY_SIGN_IN_PATHS.challenge,
    page(async (c) => {
      const fields = await readFields(c);
      const checked = checkForm(HotkeyForm, fields);
      if (checked.value === null) {
        const typed = fields["hotkey"]?.trim() ?? "";
        return await renderSignInPage(c, { ...NO_STEP, hotkey: typed, problems: checked.problems }, 400);
      }
      const { hotkey } = checked.value;
      const browser = c.get("visit").browserId();
      const hotkeys = deps.hotkeys({ browser, purpose: "hotkey_sign_in", subject: "" });
      const challenge = await hotkeys.signInChallenge(browser);
      const message = signInMessage({ origin: hotkeys.origin, challenge, hotkey });
      return await renderSignInPage(c, { hotkey, issued: { challenge, message }, problems: [] });
    }),
  );
  app.post(
    HOTKEY_SIGN_IN_PATHS.proof,
    page(async (c) => {
      const fields = await readFields(c);
      const typed = fields["hotkey"]?.trim() ?? "";
      const checked = proofForm(fields);
      if (checked.value === null) {
        return await renderSignInPage(c, { ...NO_STEP, hotkey: typed, problems: checked.problems }, 400);
      }
      try {
        const browser = c.get("visit").browserId();
        await deps.hotkeys({ browser, purpose: "hotkey_sign_in", subject: "" }).verifySignIn(
          browser,
          checked.value,
        );
      } catch (error) {
        if (!isRefusal(error)) throw error;
        return await renderSignInPage(
          c,
          { ...NO_STEP, hotkey: typed, problems: [refusalProblem(error)] },
          401,
        );
      }
      const registration = await deps.orgs.minerRegistration(checked.value.hotkey);
      if (!registration?.linkedWithProof || registration.boundMemberId === null) {
        const problems = [{ field: "hotkey", problem: CANNOT_SIGN_IN }];
        return await renderSignInPage(c, { ...NO_STEP, hotkey: typed, problems }, 401);
      }
      await startSession(c, registration.boundMemberId, { kind: "hotkey", hotkey: registration.hotkey });
      return c.redirect(HOME_PATH, 303);
    }),
  );
  return app;
}
