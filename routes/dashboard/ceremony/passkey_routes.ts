import { type Context, Hono, type MiddlewareHandler } from "hono";
import { z } from "zod";
import {
  AuthenticationResponse,
  type PasskeyCeremony,
  type PasskeyCredential,
  type PasskeySignIn,
  type PasskeyUser,
  RegistrationResponse,
  type StoredPasskey,
} from "../../../actors/ceremony/mod.ts";
import { ServiceError } from "../../../actors/kernel/mod.ts";
import { sendJson } from "../../http/answer.ts";
import type { AppEnv } from "../../http/app_env.ts";
import { parseOrThrow } from "../../http/validation.ts";
import { jsonBodyGate, parsedJsonBody } from "../../middleware/json_body.ts";
import { DisplayNameField } from "../display_name.ts";

/** Who registers a passkey: the user it is made for, and the passkeys they already have. */
export interface Registrant {
  user: PasskeyUser;
  excludeCredentialIds?: readonly string[];
}

/**
 * What the passkey endpoints need from the dashboard around them. The endpoints check the
 * ceremony; sessions, invitations and passkey storage are the dashboard's.
 */
export interface PasskeyRouteDeps {
  /** The ceremony, or the ceremony of one request (one whose challenge store knows the request). */
  ceremony: PasskeyCeremony | ((c: Context) => PasskeyCeremony);
  /** The id of the browser session asking (challenges are bound to it); null when it has none. */
  browserOf(c: Context): string | null | Promise<string | null>;
  /** Whom this browser may register a passkey for (an accepted invitation, a signed-in member); null: nobody. */
  registrantOf(c: Context): Promise<Registrant | null>;
  /**
   * Stores a verified passkey (using up the invitation, or adding it to the signed-in member);
   * answers where the page goes next. `registrant.user.displayName` is the name the member typed.
   */
  saveCredential(c: Context, registrant: Registrant, credential: PasskeyCredential): Promise<string>;
  /** The registered passkey of this credential id; null when none. */
  findPasskey(credentialId: string): Promise<StoredPasskey | null>;
  /** Signs the passkey's member in (a new session; the new counter stored); answers where the page goes next. */
  signIn(c: Context, signIn: PasskeySignIn): Promise<string>;
}

/** The endpoints' paths, below where the sub-app is mounted (`/dashboard`). */
export const PASSKEY_PATHS = {
  registrationOptions: "/passkeys/register/options",
  register: "/passkeys/register",
  signInOptions: "/sign-in/passkey/options",
  signIn: "/sign-in/passkey",
} as const;

const OptionsBody = z.object({}).strict();
/** A new member names itself when it accepts an invitation (ignored for a signed-in member's passkey). */
const RegistrationOptionsBody = z.object({ displayName: DisplayNameField.optional() }).strict();
const RegisterBody = z.object({ response: RegistrationResponse, displayName: DisplayNameField.optional() })
  .strict();
const SignInBody = z.object({ response: AuthenticationResponse }).strict();

/**
 * The JSON endpoints the passkey script (passkey_client.ts) calls: options, then the browser's
 * answer, for registering a passkey and for signing in with one (docs/dashboard.md, "Sign-in
 * ceremonies"). A refused answer is 401 `unauthenticated` with `details.refused`; a body off its
 * schema is 400 naming the field. CSRF and `Origin` checks are the dashboard's middleware, in front.
 */
export function passkeyRoutes(deps: PasskeyRouteDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const ceremonyOf = (c: Context) => typeof deps.ceremony === "function" ? deps.ceremony(c) : deps.ceremony;
  // The JSON body gate (415, 413, 400) in front of each endpoint, for POST only.
  const [jsonType, sizeCap, wellFormed] = jsonBodyGate() as [
    MiddlewareHandler,
    MiddlewareHandler,
    MiddlewareHandler,
  ];
  for (const path of Object.values(PASSKEY_PATHS)) app.on("POST", path, jsonType, sizeCap, wellFormed);
  app.post(PASSKEY_PATHS.registrationOptions, async (c) => {
    const body = parseOrThrow(RegistrationOptionsBody, parsedJsonBody(c), "body");
    const { browser, registrant } = await registration(c, deps, body.displayName);
    const options = await ceremonyOf(c).registrationOptions(browser, registrant.user, {
      excludeCredentialIds: registrant.excludeCredentialIds ?? [],
    });
    return sendJson(c, options, 200);
  });
  app.post(PASSKEY_PATHS.register, async (c) => {
    const body = parseOrThrow(RegisterBody, parsedJsonBody(c), "body");
    const { browser, registrant } = await registration(c, deps, body.displayName);
    const credential = await ceremonyOf(c).verifyRegistration(browser, body.response, {
      userHandle: registrant.user.handle,
    });
    return sendJson(c, { next: await deps.saveCredential(c, registrant, credential) }, 200);
  });
  app.post(PASSKEY_PATHS.signInOptions, async (c) => {
    parseOrThrow(OptionsBody, parsedJsonBody(c), "body");
    return sendJson(c, await ceremonyOf(c).signInOptions(await browserOf(c, deps)), 200);
  });
  app.post(PASSKEY_PATHS.signIn, async (c) => {
    const body = parseOrThrow(SignInBody, parsedJsonBody(c), "body");
    const signIn = await ceremonyOf(c).verifySignIn(await browserOf(c, deps), body.response, {
      find: deps.findPasskey,
    });
    return sendJson(c, { next: await deps.signIn(c, signIn) }, 200);
  });
  return app;
}

async function browserOf(c: Context, deps: PasskeyRouteDeps): Promise<string> {
  const browser = await deps.browserOf(c);
  if (browser === null) throw new ServiceError("unauthenticated", "No browser session: reload the page");
  return browser;
}

/** The browser and the registrant, named `displayName` when the member typed one. */
async function registration(c: Context, deps: PasskeyRouteDeps, displayName: string | undefined) {
  const browser = await browserOf(c, deps);
  const registrant = await deps.registrantOf(c);
  if (registrant === null) {
    throw new ServiceError("unauthenticated", "Nobody to register a passkey for: open your invitation link");
  }
  if (displayName === undefined || displayName === "") return { browser, registrant };
  return {
    browser,
    registrant: { ...registrant, user: { ...registrant.user, name: displayName, displayName } },
  };
}
