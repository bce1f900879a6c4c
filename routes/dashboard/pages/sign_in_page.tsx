import type { Context } from "hono";
import { Layout } from "../../pages/kit/layout.tsx";
import { renderPage } from "../../pages/kit/render.ts";
import { PASSKEY_PATHS } from "../ceremony/passkey_routes.ts";
import type { DashboardEnv } from "../dashboard_visit.ts";
import { HotkeySteps, type HotkeyStepState, NO_STEP } from "../miners/hotkey_steps.tsx";
import { HOME_PATH } from "../wiring/passkey_wiring.ts";
import { PasskeyButton } from "./passkey_button.tsx";

/** Where the hotkey sign-in's two steps post. */
export const HOTKEY_SIGN_IN_PATHS = {
  challenge: "/dashboard/sign-in/hotkey/challenge",
  proof: "/dashboard/sign-in/hotkey",
} as const;

/** `GET /dashboard/sign-in`: sign in with a passkey, no user name asked; a signed-in browser goes home. */
export function signInPage(c: Context<DashboardEnv>): Response | Promise<Response> {
  if (c.get("visit").signedIn) return c.redirect(HOME_PATH, 303);
  return renderSignInPage(c, NO_STEP);
}

/** The sign-in page with the hotkey sign-in at `hotkey`'s step (its refusals shown with `status`). */
export function renderSignInPage(
  c: Context<DashboardEnv>,
  hotkey: HotkeyStepState,
  status: 200 | 400 | 401 = 200,
): Response | Promise<Response> {
  return renderPage(
    c,
    <Layout title="Sign in" path="/dashboard/sign-in">
      <h1>Sign in to the dashboard</h1>
      <p>
        Sign in with the passkey you registered when you accepted your invitation: your browser offers the
        passkeys it holds for this site.
      </p>
      <PasskeyButton
        ceremony="sign-in"
        optionsUrl={`/dashboard${PASSKEY_PATHS.signInOptions}`}
        verifyUrl={`/dashboard${PASSKEY_PATHS.signIn}`}
        csrfToken={c.get("visit").csrfToken()}
        label="Sign in with a passkey"
        done="Signed in."
      />
      <p>No passkey? Ask an owner of your organisation, or the operator, for an invitation link.</p>
      <section aria-labelledby="hotkey-sign-in">
        <h2 id="hotkey-sign-in">Sign in with a miner hotkey</h2>
        <p>
          A hotkey an owner linked to the organisation and bound to you signs you in as yourself, with your
          role.
        </p>
        <HotkeySteps
          id="signin"
          state={hotkey}
          csrfToken={c.get("visit").csrfToken()}
          challengeAction={HOTKEY_SIGN_IN_PATHS.challenge}
          proofAction={HOTKEY_SIGN_IN_PATHS.proof}
          challengeLabel="Get a sign-in challenge"
          proofLabel="Sign in with the hotkey"
          what="Not signed in."
        />
      </section>
    </Layout>,
    status,
  );
}
