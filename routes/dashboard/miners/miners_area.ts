import { Hono } from "hono";
import type { DashboardEnv } from "../dashboard_visit.ts";
import { type HotkeyCeremonyDeps, hotkeyCeremonyFor } from "./hotkey_ceremony_for.ts";
import { hotkeyScriptRoutes } from "./hotkey_extension_script.ts";
import { hotkeySignInRoutes } from "./hotkey_sign_in.ts";
import { type MinerRouteDeps, minerRoutes } from "./miner_routes.tsx";

export type MinersAreaDeps = Omit<MinerRouteDeps, "hotkeys"> & HotkeyCeremonyDeps;

/** The miners page, hotkey linking and hotkey sign-in (sharing one hotkey ceremony), and the extension script. */
export function minersArea(deps: MinersAreaDeps): Hono<DashboardEnv> {
  const hotkeys = hotkeyCeremonyFor(deps);
  const app = new Hono<DashboardEnv>();
  app.route("/", hotkeyScriptRoutes());
  app.route("/", hotkeySignInRoutes({ hotkeys, orgs: deps.orgs }));
  app.route("/", minerRoutes({ ...deps, hotkeys }));
  return app;
}
