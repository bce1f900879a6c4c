import type { Context } from "hono";
import { Layout } from "../../pages/kit/layout.tsx";
import { renderPage } from "../../pages/kit/render.ts";
import { PASSKEY_PATHS } from "../ceremony/passkey_routes.ts";
import type { DashboardEnv } from "../dashboard_visit.ts";
import { HOME_PATH } from "../wiring/passkey_wiring.ts";
import { PasskeyButton } from "./passkey_button.tsx";

/** `GET /dashboard/sign-in`: sign in with a passkey, no user name asked; a signed-in browser goes home. */
export function signInPage(c: Context<DashboardEnv>): Response | Promise<Response> {
  if (c.get("visit").signedIn) return c.redirect(HOME_PATH, 303);
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
    </Layout>,
  );
}
