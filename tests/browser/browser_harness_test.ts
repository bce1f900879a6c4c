/**
 * The browser harness finds what it is there to find: each check run against a small page made to
 * break it, served by a local server, and against the same page without the fault.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { axeViolations } from "../support/browser/axe.ts";
import { browserTest } from "../support/browser/browser_host.ts";
import { layoutProblems } from "../support/browser/in_page.ts";
import { PHONE, type VisitOptions, visitPage } from "../support/browser/page_visit.ts";
import { tabWalk } from "../support/browser/tab_walk.ts";

const STRICT_CSP = "default-src 'self'; frame-ancestors 'none'";

/** Fixture pages by path: body, status, and whether the strict policy applies. */
const PAGES: Record<string, { body: string; status?: number; csp?: boolean }> = {
  "/clean": { body: "<main><h1>Clean</h1><p>Nothing wrong here.</p><a href='/clean'>again</a></main>" },
  "/other-host": {
    body: "<main><h1>Other host</h1><img alt='remote' src='http://203.0.113.7/x.png'></main>",
  },
  "/inline-script": {
    body: "<main><h1>Inline</h1><script>document.title = 'ran'</script></main>",
    csp: true,
  },
  "/throws": { body: "<main><h1>Throws</h1><script src='/throws.js'></script></main>" },
  "/throws.js": { body: "throw new Error('broken on purpose')" },
  "/missing-file": { body: "<main><h1>Missing</h1><img alt='gone' src='/nowhere.png'></main>" },
  "/not-found": { body: "<main><h1>No such page</h1></main>", status: 404 },
  "/no-alt": { body: "<main><h1>Image</h1><img src='/clean'></main>" },
  "/inert-link": {
    body:
      "<main><h1>Links</h1><a href='/clean'>reached</a><div inert><a href='/clean'>never</a></div></main>",
  },
  "/wide": { body: "<main><h1>Wide</h1><div style='width: 2000px'>wide</div></main>" },
  "/scroller": {
    body:
      "<main><h1>Table</h1><div id='box' style='overflow-x: auto'><div style='width: 2000px'>x</div></div></main>",
  },
  "/focusable-scroller": {
    body:
      "<main><h1>Table</h1><div tabindex='0' style='overflow-x: auto'><div style='width: 2000px'>x</div></div></main>",
  },
};

function serveFixtures() {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const path = new URL(request.url).pathname;
    const page = PAGES[path];
    if (!page) return new Response("not found", { status: 404 });
    const script = path.endsWith(".js");
    const html =
      `<!doctype html><html lang="en"><head><title>Fixture</title></head><body>${page.body}</body></html>`;
    return new Response(script ? page.body : html, {
      status: page.status ?? 200,
      headers: {
        "content-type": script ? "text/javascript" : "text/html; charset=utf-8",
        ...(page.csp ? { "content-security-policy": STRICT_CSP } : {}),
      },
    });
  });
}

async function problemsOf(browser: Browser, base: string, path: string, options: VisitOptions = {}) {
  await using visit = await visitPage(browser, { base, path }, options);
  return visit.problems();
}

browserTest("the browser harness reports what breaks a page", async ({ browser, t }) => {
  await using server = serveFixtures();
  const base = `http://127.0.0.1:${server.addr.port}`;

  await t.step("a clean page has no problem", async () => {
    assert.deepEqual(await problemsOf(browser, base, "/clean"), []);
  });
  await t.step("a request to another host is refused and reported", async () => {
    assert.deepEqual(await problemsOf(browser, base, "/other-host"), [
      "request to another host: http://203.0.113.7/x.png",
    ]);
  });
  await t.step("a script the Content-Security-Policy refuses is a console error", async () => {
    const [problem, ...rest] = await problemsOf(browser, base, "/inline-script");
    assert.match(problem ?? "", /^console error: .*Content Security Policy/);
    assert.deepEqual(rest, []);
  });
  await t.step("an uncaught exception is reported", async () => {
    assert.deepEqual(await problemsOf(browser, base, "/throws"), ["uncaught exception: broken on purpose"]);
  });
  await t.step("an error status of a file the page loads is reported", async () => {
    const problems = await problemsOf(browser, base, "/missing-file");
    assert.ok(problems.includes(`status 404: GET ${base}/nowhere.png`), problems.join("\n"));
  });
  await t.step(
    "a deliberate 404 page is clean when its status is expected, and reported when not",
    async () => {
      assert.deepEqual(await problemsOf(browser, base, "/not-found", { status: 404 }), []);
      const unexpected = await problemsOf(browser, base, "/not-found");
      assert.ok(unexpected.includes("the page answered 404, not 200"), unexpected.join("\n"));
    },
  );
  await t.step("axe reports a critical violation, unless excepted", async () => {
    await using visit = await visitPage(browser, { base, path: "/no-alt" });
    const violations = await axeViolations(visit.page);
    assert.deepEqual(violations.map((v) => [v.rule, v.impact]), [["image-alt", "critical"]]);
    assert.deepEqual(await axeViolations(visit.page, { excepted: { "image-alt": "a fixture" } }), []);
  });
  await t.step("the Tab walk lists what it focused and what it never reached", async () => {
    await using visit = await visitPage(browser, { base, path: "/inert-link" });
    const walk = await tabWalk(visit.page);
    assert.deepEqual(walk.focused, ['a "reached"']);
    assert.deepEqual(walk.missed, ['a "never"']);
  });
  await t.step(
    "at phone width, a page wider than the screen and an unfocusable scroller are reported",
    async () => {
      const layout = async (path: string) => {
        await using visit = await visitPage(browser, { base, path }, { viewport: PHONE });
        return await visit.page.evaluate(layoutProblems);
      };
      const wide = await layout("/wide");
      assert.equal(wide.length, 1);
      assert.match(wide[0]!, new RegExp(`^the page is 20\\d\\dpx wide in a ${PHONE.width}px window$`));
      assert.deepEqual(await layout("/scroller"), ["div#box scrolls sideways and cannot be focused"]);
      assert.deepEqual(await layout("/focusable-scroller"), []);
    },
  );
});
