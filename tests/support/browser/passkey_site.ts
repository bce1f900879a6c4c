/**
 * A test-only site for the passkey ceremonies in a real browser: a page with the two passkey
 * buttons, the passkey script, and the passkey endpoints (routes/dashboard/ceremony/) around
 * passkeys and sign-ins kept in memory. Served on `http://localhost:<port>` (WebAuthn refuses IP
 * addresses), with the pages' security headers (no inline script allowed).
 */
import { Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import {
  PasskeyCeremony,
  type PasskeySignIn,
  publicOriginOf,
  type StoredPasskey,
} from "../../../actors/ceremony/mod.ts";
import { ManualClock, ServiceError } from "../../../actors/kernel/mod.ts";
import type { AppEnv } from "../../../routes/http/app_env.ts";
import { onError } from "../../../routes/middleware/error_handler.ts";
import { PAGE_SECURITY_HEADERS } from "../../../routes/pages/kit/page_answer.ts";
import {
  PASSKEY_PATHS,
  passkeyRoutes,
  type Registrant,
} from "../../../routes/dashboard/ceremony/passkey_routes.ts";
import {
  PASSKEY_SCRIPT_PATH,
  passkeyScriptRoutes,
} from "../../../routes/dashboard/ceremony/passkey_script.ts";
import { MemoryChallengeStore } from "../memory_challenge_store.ts";

/** The CSRF token the page hands the script, and the endpoints ask back. */
const CSRF = "csrf-token-of-the-test-page";

/** The one member who registers: Ada. */
export const ADA: Registrant["user"] = { handle: "mem_ada", name: "ada@example.org", displayName: "Ada" };

export interface PasskeySite {
  /** `http://localhost:<port>`. */
  base: string;
  clock: ManualClock;
  /** Registered passkeys by credential id. */
  passkeys: Map<string, StoredPasskey>;
  /** Every sign-in that verified, in order. */
  signIns: PasskeySignIn[];
  [Symbol.asyncDispose](): Promise<void>;
}

export interface PasskeySiteOptions {
  /** The configured public URL (`FGW_PUBLIC_URL`); by default the site's own `http://localhost:<port>`. */
  publicUrl?: string;
  /** Passkeys shared with another site; a new map by default. */
  passkeys?: Map<string, StoredPasskey>;
}

const { registrationOptions, register, signInOptions, signIn } = PASSKEY_PATHS;

/** The page: the two buttons as docs/dashboard.md shows them, hidden until the script shows them. */
const PAGE = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Passkeys</title>
<script src="${PASSKEY_SCRIPT_PATH}" defer></script></head><body><main><h1>Passkeys</h1>
<button type="button" id="register" hidden data-passkey="register" data-csrf="${CSRF}" data-status="status"
  data-options="/dashboard${registrationOptions}" data-verify="/dashboard${register}"
  data-done="Passkey registered.">Register a passkey</button>
<button type="button" id="sign-in" hidden data-passkey="sign-in" data-csrf="${CSRF}" data-status="status"
  data-options="/dashboard${signInOptions}" data-verify="/dashboard${signIn}">Sign in with a passkey</button>
<p id="status" role="status"></p></main></body></html>`;

function signedInPage(handle: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Signed in</title></head>` +
    `<body><main><h1>Signed in as ${handle}</h1></main></body></html>`;
}

/** Serves the site until disposed. */
export function openPasskeySite(options: PasskeySiteOptions = {}): PasskeySite {
  const clock = new ManualClock(Date.now());
  const passkeys = options.passkeys ?? new Map<string, StoredPasskey>();
  const signIns: PasskeySignIn[] = [];
  let app: Hono<AppEnv> | null = null;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => app!.fetch(request),
  );
  const base = `http://localhost:${server.addr.port}`;
  const ceremony = new PasskeyCeremony({
    origin: publicOriginOf(options.publicUrl ?? base),
    rpName: "Forecasting Gateway (test)",
    challenges: new MemoryChallengeStore(),
    clock: clock.now,
  });
  app = siteApp({ ceremony, passkeys, signIns });
  return { base, clock, passkeys, signIns, [Symbol.asyncDispose]: () => server.shutdown() };
}

function siteApp(
  world: { ceremony: PasskeyCeremony; passkeys: Map<string, StoredPasskey>; signIns: PasskeySignIn[] },
) {
  const { passkeys, signIns } = world;
  const app = new Hono<AppEnv>();
  app.onError(onError(() => {}));
  app.get("/", (c) => {
    if (!getCookie(c, "browser")) {
      setCookie(c, "browser", crypto.randomUUID(), { httpOnly: true, sameSite: "Lax", path: "/" });
    }
    return c.html(PAGE, 200, { ...PAGE_SECURITY_HEADERS });
  });
  app.get(
    "/signed-in",
    (c) => c.html(signedInPage(signIns.at(-1)?.userHandle ?? "nobody"), 200, { ...PAGE_SECURITY_HEADERS }),
  );
  app.route("/", passkeyScriptRoutes());
  app.use("/dashboard/*", async (c, next) => {
    if (c.req.header("x-csrf-token") !== CSRF) {
      throw new ServiceError("unauthenticated", "Missing CSRF token");
    }
    await next();
  });
  app.route(
    "/dashboard",
    passkeyRoutes({
      ceremony: world.ceremony,
      browserOf: (c) => getCookie(c, "browser") ?? null,
      registrantOf: () => Promise.resolve({ user: ADA, excludeCredentialIds: [...passkeys.keys()] }),
      saveCredential: (_c, registrant, credential) => {
        passkeys.set(credential.id, { credential, userHandle: registrant.user.handle });
        return Promise.resolve("");
      },
      findPasskey: (id) => Promise.resolve(passkeys.get(id) ?? null),
      signIn: (_c, signIn) => {
        const stored = passkeys.get(signIn.credentialId);
        if (stored) stored.credential.counter = signIn.newCounter;
        signIns.push(signIn);
        return Promise.resolve("/signed-in");
      },
    }),
  );
  return app;
}
