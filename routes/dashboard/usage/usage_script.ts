import { Hono } from "hono";
import type { AppEnv } from "../../http/app_env.ts";
import { assetHandler } from "../../pages/assets/asset_routes.ts";
import { fillBrowserZone } from "./usage_client.ts";

/** Where the usage page's script is served (a same-origin file: the pages' CSP forbids inline scripts). */
export const USAGE_SCRIPT_PATH = "/dashboard/assets/usage.js";

/** The script: `fillBrowserZone` as the runtime holds it (types stripped), run once in a closure. */
export const USAGE_JS = `(() => {\n"use strict";\n${String(fillBrowserZone)}\nfillBrowserZone();\n})();\n`;

/** `GET /dashboard/assets/usage.js`, with the pages' asset headers. */
export function usageScriptRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get(USAGE_SCRIPT_PATH, assetHandler(USAGE_JS, "text/javascript; charset=utf-8"));
  return app;
}
