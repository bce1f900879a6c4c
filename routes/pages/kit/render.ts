import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { sendPage } from "./page_answer.ts";
import { pageNoticeOf, withNotice } from "./page_notice.tsx";

/** What hono/jsx gives for an element: its HTML, now or once its async parts are done. */
export interface Rendered {
  toString(): string | Promise<string>;
}

/** The document of a rendered page element (`<!DOCTYPE html>` first), or a fragment's HTML. */
export async function htmlOf(node: Rendered): Promise<string> {
  const html = String(await node.toString());
  return html.startsWith("<html") ? `<!DOCTYPE html>${html}` : html;
}

/**
 * Answers with a rendered element as the page (its headers: `sendPage`), with the notice a
 * middleware set for the request (page_notice.tsx).
 */
export async function renderPage(
  c: Context,
  node: Rendered,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  const notice = pageNoticeOf(c);
  const page = notice === null ? node : withNotice(notice, node);
  return sendPage(c, await htmlOf(page), status);
}
