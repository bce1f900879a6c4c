import type { Context } from "hono";
import { type Child, createContext, useContext } from "hono/jsx";

/**
 * A notice every page of one request shows first in its main content, whichever handler renders
 * the page: a middleware sets it (`setPageNotice`), `renderPage` hands it to the `Layout`. The
 * dashboard's low-balance banner is one.
 */
const PageNotice = createContext<Child>(null);

/** The context variable a request's notice is kept in. */
const NOTICE = "pageNotice";

/** Sets the notice the pages of this request show. */
export function setPageNotice(c: Context, notice: Child): void {
  c.set(NOTICE, notice);
}

/** The notice a middleware set for this request, if any. */
export function pageNoticeOf(c: Context): Child {
  return (c.get(NOTICE) as Child | undefined) ?? null;
}

/** `node` rendered with `notice` as its page's notice. */
export function withNotice(notice: Child, node: { toString(): string | Promise<string> }) {
  return <PageNotice.Provider value={notice}>{node as Child}</PageNotice.Provider>;
}

/** The notice of the page being rendered (the `Layout` shows it). */
export function usePageNotice(): Child {
  return useContext(PageNotice);
}
