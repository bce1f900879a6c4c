import { type Context, Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import { ASSET_PATHS, assetRoutes } from "./assets/asset_routes.ts";
import { pageHandler } from "./kit/error_page.tsx";
import { homePage } from "./home_page.tsx";
import type { OverviewSource } from "../overview/overview_source.ts";
import { leaderboardPage, type LeaderboardPageDeps } from "./leaderboard/leaderboard_page.tsx";
import type { MinerView } from "../../actors/scoring/mod.ts";
import { minerPage } from "./miner/miner_page.tsx";
import type { CatalogPages } from "../catalog/catalog_pages.ts";
import type { EventDetails } from "../catalog/event_detail.ts";
import type { ScoredPages } from "../scoring/scored_pages.ts";
import { eventsPage } from "./events/events_page.tsx";
import { eventPage } from "./events/event_page.tsx";
import { scoredPage } from "./events/scored_page.tsx";

import type { ScoringSettings } from "../../actors/scoring/mod.ts";
import { methodologyPage } from "./methodology/methodology_page.tsx";

/** What the pages read: the same views and stores as their JSON routes. */
export interface PageDeps {
  /** The home page's figures (`GET /v1/overview`'s source). */
  overview: OverviewSource;
  /** The leaderboard view and the views of it `GET /v1/leaderboard` renders. */
  leaderboard: LeaderboardPageDeps;
  /** The miners' reports (`/miners/{hotkey}`, as `GET /v1/miners/{hotkey}`). */
  miners: MinerView;
  /** `/events`, `/events/{id}` and `/scored`: the reads of `GET /v1/events`, `/v1/events/{eventId}`, `/v1/events/scored`. */
  events: { catalogPages: CatalogPages; eventDetails: EventDetails; scoredPages: ScoredPages };
  /** The deployment's scoring settings (`/methodology`). */
  scoringSettings: ScoringSettings;
}

type PageRender = (c: Context) => Promise<Response>;

/** Each page: its path (Hono's syntax) and how it is rendered from the views it reads. */
const PAGES: Record<string, (deps: PageDeps) => PageRender> = {
  "/": (deps) => homePage(deps.overview),
  "/leaderboard": (deps) => leaderboardPage(deps.leaderboard),
  "/miners/:hotkey": (deps) => minerPage(deps.miners),
  "/events": (deps) => eventsPage(deps.events.catalogPages),
  "/events/:id": (deps) => eventPage(deps.events.eventDetails),
  "/scored": (deps) => scoredPage(deps.events.scoredPages),
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
