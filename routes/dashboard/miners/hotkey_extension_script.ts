import { Hono } from "hono";
import type { AppEnv } from "../../http/app_env.ts";
import { assetHandler } from "../../pages/assets/asset_routes.ts";
import {
  hexOfText,
  injectedExtensions,
  signWithExtension,
  startExtensionButtons,
} from "./hotkey_extension_client.ts";

/** Where the extension script is served (a same-origin file: the pages' CSP forbids inline scripts). */
export const HOTKEY_SCRIPT_PATH = "/dashboard/assets/hotkey.js";

const FUNCTIONS = [injectedExtensions, hexOfText, signWithExtension, startExtensionButtons];

/**
 * The extension script: the functions of hotkey_extension_client.ts as the runtime holds them, in
 * one strict-mode closure that leaves no global behind, then the wiring of the page's proof forms,
 * again a second later for an extension that injects itself after the page loaded.
 */
export const HOTKEY_JS = `(() => {\n"use strict";\n\n${
  FUNCTIONS.map(String).join("\n\n")
}\n\nstartExtensionButtons();\nsetTimeout(startExtensionButtons, 1000);\n})();\n`;

/** `GET /dashboard/assets/hotkey.js`, with the pages' asset headers. */
export function hotkeyScriptRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get(HOTKEY_SCRIPT_PATH, assetHandler(HOTKEY_JS, "text/javascript; charset=utf-8"));
  return app;
}
