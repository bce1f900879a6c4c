import type { TestBrowser } from "./dashboard.ts";
import type { TestService } from "./test_service.ts";

/** The dashboard origin the page tests' services run with (`FGW_PUBLIC_URL`). */
export const PAGE_ORIGIN = "http://localhost:8080";
const HTML = { accept: "text/html" };

const fetcher = (service: TestService) => (path: string, init?: RequestInit) => service.request(path, init);

/** `browser` GETs the dashboard page at `path`, as a browser asking for HTML. */
export function getPage(service: TestService, browser: TestBrowser, path: string): Promise<Response> {
  return browser.fetch(fetcher(service), path, { headers: HTML });
}

/** The page's HTML, asserting nothing about its status. */
export async function pageText(service: TestService, browser: TestBrowser, path: string): Promise<string> {
  return await (await getPage(service, browser, path)).text();
}

/**
 * Posts a form to `path` from the page at `from` (whose CSRF token it carries), same-origin, as
 * a browser submitting it: the answer is not followed.
 */
export async function postForm(
  service: TestService,
  browser: TestBrowser,
  path: string,
  fields: [string, string][] = [],
  from = "/dashboard",
): Promise<Response> {
  const page = await pageText(service, browser, from);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
  return await browser.fetch(fetcher(service), path, {
    method: "POST",
    headers: { ...HTML, origin: PAGE_ORIGIN, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams([...fields, ["_csrf", csrf]]),
  });
}

/** The audit actions of `orgId`, newest first. */
export async function auditActions(service: TestService, orgId: string): Promise<string[]> {
  return (await service.storage.audit.list(orgId, { limit: 200 })).map((entry) => entry.action);
}
