import { Hono } from "hono";
import type { AppEnv } from "../../http/app_env.ts";
import { assetHandler } from "../../pages/assets/asset_routes.ts";
import {
  authenticationJsonOf,
  base64urlOfBytes,
  bytesOfBase64url,
  creationOptionsOf,
  descriptorsOf,
  failureText,
  onPasskeyClick,
  postJson,
  refusalText,
  registrationJsonOf,
  requestOptionsOf,
  runPasskeyCeremony,
  startPasskeyButtons,
  typedName,
} from "./passkey_client.ts";

/** Where the passkey script is served (a same-origin file: the pages' CSP forbids inline scripts). */
export const PASSKEY_SCRIPT_PATH = "/dashboard/assets/passkey.js";

const FUNCTIONS = [
  bytesOfBase64url,
  base64urlOfBytes,
  descriptorsOf,
  creationOptionsOf,
  requestOptionsOf,
  registrationJsonOf,
  authenticationJsonOf,
  postJson,
  refusalText,
  typedName,
  runPasskeyCeremony,
  failureText,
  onPasskeyClick,
  startPasskeyButtons,
];

/**
 * The passkey script: the functions of passkey_client.ts as the runtime holds them (their source
 * with the types stripped), in one strict-mode closure that leaves no global behind, then a call
 * that wires the page's buttons.
 */
export const PASSKEY_JS = `(() => {\n"use strict";\n\n${
  FUNCTIONS.map(String).join("\n\n")
}\n\nstartPasskeyButtons();\n})();\n`;

/** `GET /dashboard/assets/passkey.js`, with the pages' asset headers. */
export function passkeyScriptRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get(PASSKEY_SCRIPT_PATH, assetHandler(PASSKEY_JS, "text/javascript; charset=utf-8"));
  return app;
}
