import { type Context, Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import { ASSET_PATHS, assetRoutes } from "./assets/asset_routes.ts";
import { pageHandler } from "./kit/error_page.tsx";
import { homePage } from "./home_page.tsx";
import type { ScoringSettings } from "../../actors/scoring/mod.ts";
import { methodologyPage } from "./methodology/methodology_page.tsx";

/** What the pages read: the same views and stores as their JSON routes. */
export interface PageDeps {
  /** The deployment's scoring settings (`/methodology`). */
  scoringSettings: ScoringSettings;
}

type PageRender = (c: Context) => Promise<Response>;

/** Each page: its path (Hono's syntax) and how it is rendered from the views it reads. */
const PAGES: Record<string, (deps: PageDeps) => PageRender> = {
  "/": () => homePage,
  "/methodology": (deps) => methodologyPage(deps.scoringSettings),
};

/**
 * Every path the pages serve (documents and assets). They are HTML for people, not API: the
 * OpenAPI document leaves them out (tests/http/openapi_test.ts reads this list).
 */
export const PAGE_PATHS: readonly string[] = [...ASSET_PATHS, ...Object.keys(PAGES)];

/**
 * The public web pages (docs/pages.md): server-rendered HTML outside `/v1`, readable without
 * JavaScript, each reading the same view as its JSON route. A page's refusal is a page
 * (`pageHandler`), or the JSON error body when the client asks for JSON.
 */
export function pageRoutes(deps: PageDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.route("/", assetRoutes());
  for (const [path, page] of Object.entries(PAGES)) app.get(path, pageHandler(page(deps)));
  return app;
}
