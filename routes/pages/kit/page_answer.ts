import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { sendBody } from "../../http/answer.ts";
import { acceptsGzip, PageBytes } from "./page_bytes.ts";

/**
 * The Content-Security-Policy of every page but `/docs`: nothing inline, nothing from another
 * host, no framing (docs/pages.md, "Headers").
 */
export const PAGE_CSP = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Headers every page and page asset carries, besides its own `Content-Type`. */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "Content-Security-Policy": PAGE_CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
});

const HTML_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...PAGE_SECURITY_HEADERS,
  "Content-Type": "text/html; charset=utf-8",
  // The figures come from views cached on the server; a browser asks again each time.
  "Cache-Control": "no-cache",
});

const GZIP_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...HTML_HEADERS,
  "Content-Encoding": "gzip",
  "Vary": "Accept-Encoding",
});
const PLAIN_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...HTML_HEADERS,
  "Vary": "Accept-Encoding",
});

const pageBytes = new PageBytes();

/**
 * An HTML page (`html` is its `<!DOCTYPE html>` and document) with the page headers, gzip when the
 * client accepts it, as a browser does. Its bytes are encoded once per page text (`PageBytes`).
 */
export function sendPage(c: Context, html: string, status: ContentfulStatusCode = 200): Response {
  const gzip = acceptsGzip(c.req.header("accept-encoding"));
  const headers = gzip ? GZIP_HEADERS : PLAIN_HEADERS;
  return sendBody(c, pageBytes.of(html, gzip), status, HTML_HEADERS["Content-Type"]!, headers);
}

/**
 * True when the client asks for JSON rather than HTML: its `Accept` names `application/json` and
 * not `text/html` (a browser names `text/html`), so a page's refusal is the API's error body.
 */
export function wantsJson(c: Context): boolean {
  const accept = c.req.header("accept") ?? "";
  return accept.includes("application/json") && !accept.includes("text/html");
}

/** True when the client asks for HTML (a browser): used to answer unknown paths with a page. */
export function wantsHtml(c: Context): boolean {
  return (c.req.header("accept") ?? "").includes("text/html");
}
