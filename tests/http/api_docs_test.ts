import assert from "node:assert/strict";
import css from "swagger-ui-dist/swagger-ui.css" with { type: "text" };
import bundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "text" };
import { errorCode } from "../support/access.ts";
import { openTestService, type TestService } from "../support/test_service.ts";
import { fetchDocument } from "./openapi_support.ts";

/** The `src` and `href` values of the page's elements. */
function linkedUrls(page: string): string[] {
  return [...page.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((match) => match[1]!);
}

async function docsPage(service: TestService): Promise<{ response: Response; page: string }> {
  const response = await service.request("/docs");
  return { response, page: await response.text() };
}

Deno.test("GET /docs is a page that loads Swagger UI from the service and no other host", async () => {
  await using service = await openTestService();
  const { response, page } = await docsPage(service);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
  assert.doesNotMatch(page, /https?:|\/\/[a-z]/i, "no absolute or protocol-relative URL");
  const urls = linkedUrls(page);
  assert.deepEqual(urls.filter((url) => !url.startsWith("/")), [], "every link is same-origin");
  const scripts = [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  assert.equal(scripts.length, 2);
  for (const [, attributes, body] of scripts) {
    assert.match(attributes!, /\ssrc="\/docs\/assets\//, "each script is a file of the service");
    assert.equal(body, "", "no inline script");
  }
  assert.doesNotMatch(page, /\sstyle=/, "no inline style in the page itself");
  assert.match(page, /<noscript>[\s\S]*href="\/openapi\.json"/, "without JavaScript it names the document");
});

Deno.test("GET /docs carries its own Content-Security-Policy (inline styles and data: images only) and the page headers", async () => {
  await using service = await openTestService();
  const { response } = await docsPage(service);
  const policy = (response.headers.get("content-security-policy") ?? "").split(";").map((part) =>
    part.trim()
  );
  assert.deepEqual(policy.toSorted(), [
    "default-src 'self'",
    "frame-ancestors 'none'",
    "img-src 'self' data:",
    "style-src 'self' 'unsafe-inline'",
  ]);
  assert.equal(response.headers.get("x-content-type-options"), "nosniff");
  assert.equal(response.headers.get("referrer-policy"), "same-origin");
});

Deno.test("the files of /docs are served with their types, a year's cache, an ETag and nosniff", async () => {
  await using service = await openTestService();
  const { page } = await docsPage(service);
  const assets = linkedUrls(page).filter((url) => url.startsWith("/docs/assets/"));
  const byName = new Map(assets.map((url) => [url.split("/").at(-1)!, url]));
  assert.deepEqual([...byName.keys()].toSorted(), ["docs-init.js", "swagger-ui-bundle.js", "swagger-ui.css"]);
  const expected: Record<string, { type: string; body?: string }> = {
    "swagger-ui.css": { type: "text/css; charset=utf-8", body: css },
    "swagger-ui-bundle.js": { type: "text/javascript; charset=utf-8", body: bundle },
    "docs-init.js": { type: "text/javascript; charset=utf-8" },
  };
  for (const [name, url] of byName) {
    const response = await service.request(url);
    assert.equal(response.status, 200, name);
    assert.equal(response.headers.get("content-type"), expected[name]!.type, name);
    assert.equal(response.headers.get("cache-control"), "public, max-age=31536000, immutable", name);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff", name);
    assert.match(response.headers.get("etag") ?? "", /^"[0-9a-f]{24}"$/, name);
    const body = await response.text();
    if (expected[name]!.body !== undefined) {
      assert.equal(body, expected[name]!.body, `${name} is the package's file`);
    }
  }
  const start = await (await service.request(byName.get("docs-init.js")!)).text();
  assert.match(start, /url: "\/openapi\.json"/);
  assert.match(start, /validatorUrl: null/, "no badge from the public validator service");
});

Deno.test("a file of /docs answers 304 to its ETag, and 404 under another version or name", async () => {
  await using service = await openTestService();
  const { page } = await docsPage(service);
  const url = linkedUrls(page).find((link) => link.endsWith("/swagger-ui.css"))!;
  const etag = (await service.request(url)).headers.get("etag")!;
  const again = await service.request(url, { headers: { "if-none-match": `W/${etag}` } });
  assert.equal(again.status, 304);
  assert.equal(await again.text(), "");
  assert.equal(again.headers.get("etag"), etag);
  const otherVersion = await service.request("/docs/assets/5.0.0-00000000/swagger-ui.css");
  assert.equal(otherVersion.status, 404);
  assert.equal(await errorCode(otherVersion), "not_found");
  const otherName = await service.request(url.replace("swagger-ui.css", "index.html"));
  assert.equal(otherName.status, 404);
  assert.equal(await errorCode(otherName), "not_found");
});

Deno.test("the OpenAPI document describes /docs and its files as served by the service", async () => {
  await using service = await openTestService();
  const doc = await fetchDocument(service.request);
  const reference = doc.paths["/docs"]?.["get"] as unknown as { description: string };
  assert.match(reference.description, /served by the service/);
  assert.doesNotMatch(reference.description, /CDN/);
  assert.ok(doc.paths["/docs/assets/{version}/{file}"]?.["get"]);
});
