import { type Context, Hono } from "hono";
import type { AppEnv } from "../../http/app_env.ts";
import { sendBody } from "../../http/answer.ts";
import { PAGE_SECURITY_HEADERS } from "../kit/page_answer.ts";
import { acceptsGzip, PageBytes } from "../kit/page_bytes.ts";
import { FAVICON_SVG, SITE_CSS } from "./site_css.ts";

/** How long a browser keeps an asset before asking again (they change only with a release). */
const ASSET_MAX_AGE_SECONDS = 3600;

/** The paths of the pages' own assets. */
export const ASSET_PATHS = ["/assets/site.css", "/favicon.svg", "/favicon.ico"] as const;

/**
 * The handler of one asset of the pages (`body` of media `type`): the page security headers, a
 * browser cache of an hour, gzip when the client accepts it (encoded once, as pages are).
 */
export function assetHandler(body: string, type: string): (c: Context) => Response {
  const bytes = new PageBytes();
  const headers = {
    ...PAGE_SECURITY_HEADERS,
    "Content-Type": type,
    "Cache-Control": `public, max-age=${ASSET_MAX_AGE_SECONDS}`,
    "Vary": "Accept-Encoding",
  };
  const gzipHeaders = { ...headers, "Content-Encoding": "gzip" };
  return (c: Context) => {
    const gzip = acceptsGzip(c.req.header("accept-encoding"));
    return sendBody(c, bytes.of(body, gzip), 200, type, gzip ? gzipHeaders : headers);
  };
}

/** `GET /assets/site.css`, `GET /favicon.svg` and `GET /favicon.ico`: the pages' own assets (`assetHandler`). */
export function assetRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/assets/site.css", assetHandler(SITE_CSS, "text/css; charset=utf-8"));
  app.get("/favicon.svg", assetHandler(FAVICON_SVG, "image/svg+xml"));
  app.get("/favicon.ico", assetHandler(FAVICON_SVG, "image/svg+xml"));
  return app;
}
