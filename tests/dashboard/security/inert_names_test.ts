/**
 * An XSS payload in every name an operator or a member types — the organisation's name, a key's
 * name, a member's display name — is shown inert on every dashboard page (every GET route of the
 * route table, as an owner and as a viewer, the keys form shown again with its errors, and the
 * members page's refusals and links, which name a member).
 */
import assert from "node:assert/strict";
import { ADMIN_TOKEN } from "../../support/access.ts";
import { ORIGIN, type TestBrowser } from "../../support/dashboard.ts";
import { openTestService, type TestService } from "../../support/test_service.ts";
import { buildWorld, DASHBOARD_ROUTES } from "./route_table.ts";

const ON = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: ORIGIN };
const HTML = { accept: "text/html" };

/** Breaks out of an attribute and of text, in a script tag and an event handler. */
const payload = (what: string) => `${what}"'><script>alert("${what}")</script><img src=x onerror=alert(1)>`;
const NAMES = { org: payload("org"), key: payload("key"), member: payload("member") };
const NEW_KEY = payload("newkey");

/** What hono/jsx writes for text and attribute values. */
function escaped(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll(
    '"',
    "&quot;",
  )
    .replaceAll("'", "&#39;");
}

function assertInert(html: string, where: string): void {
  assert.doesNotMatch(html, /<script>alert/, where);
  assert.doesNotMatch(html, /<img src=x/, where);
  assert.doesNotMatch(html, /"'>/, where);
}

const fetcher = (service: TestService) => (path: string, init?: RequestInit) => service.request(path, init);

async function postKeyForm(
  service: TestService,
  owner: TestBrowser,
  fields: [string, string][],
): Promise<Response> {
  const page = await (await owner.fetch(fetcher(service), "/dashboard/keys", { headers: HTML })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
  return await owner.fetch(fetcher(service), "/dashboard/keys", {
    method: "POST",
    headers: { ...HTML, origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams([...fields, ["_csrf", csrf]]),
  });
}

Deno.test("names with an XSS payload are shown inert on every dashboard page", async () => {
  await using service = await openTestService({ env: ON });
  const world = await buildWorld(service, NAMES);
  const pages: Array<[string, string]> = [];
  for (const [route, entry] of Object.entries(DASHBOARD_ROUTES)) {
    if (!route.startsWith("GET ")) continue;
    for (const [who, browser] of [["owner", world.own.owner], ["viewer", world.own.viewer]] as const) {
      const answer = await browser.fetch(fetcher(service), entry.own(world).path, { headers: HTML });
      if (!(answer.headers.get("content-type") ?? "").includes("text/html")) continue;
      pages.push([`${route} as ${who}`, await answer.text()]);
    }
  }
  // A key made in the dashboard with such a name, the page that shows its secret, and the form
  // shown again with an error and the typed name in it.
  const made = await postKeyForm(service, world.own.owner, [["name", NEW_KEY], ["scopes", "billing:read"], [
    "rateLimitRpm",
    "30",
  ]]);
  assert.equal(made.status, 303);
  const shown = await world.own.owner.fetch(fetcher(service), "/dashboard/keys", { headers: HTML });
  pages.push(["the keys page with a new key's secret", await shown.text()]);
  const refused = await postKeyForm(service, world.own.owner, [["name", NEW_KEY], ["rateLimitRpm", "30"]]);
  assert.equal(refused.status, 400);
  pages.push(["the key form shown again", await refused.text()]);

  for (const [where, html] of pages) assertInert(html, where);
  const all = pages.map(([, html]) => html).join("\n");
  for (const name of [NAMES.org, NAMES.key, NAMES.member, NEW_KEY]) {
    assert.ok(all.includes(escaped(name)), `a page shows ${name.slice(0, 6)}… escaped`);
  }
  assert.ok(
    pages.find(([where]) => where === "the key form shown again")![1].includes(escaped(NEW_KEY)),
    "the form shown again keeps the typed name, escaped",
  );
});

Deno.test("a member's display name with an XSS payload is shown escaped on the members and audit pages", async () => {
  await using service = await openTestService({ env: ON });
  const world = await buildWorld(service, NAMES);
  const member = `/dashboard/members/${world.own.memberId}`;
  const pages: Array<[string, string]> = [];
  for (const [who, browser] of [["owner", world.own.owner], ["viewer", world.own.viewer]] as const) {
    const answer = await browser.fetch(fetcher(service), "/dashboard/members", { headers: HTML });
    assert.equal(answer.status, 200, who);
    pages.push([`the members page as ${who}`, await answer.text()]);
  }
  // The role form refused (the member named in the refusal), a re-enrolment link for the member
  // (named in the link's banner), and the audit log naming who did it.
  const refused = await postMembersForm(service, world.own.owner, `${member}/role`, [["role", "admin"]]);
  assert.equal(refused.status, 400);
  pages.push(["the role form refused", await refused.text()]);
  assert.equal((await postMembersForm(service, world.own.owner, `${member}/reenrol`, [])).status, 303);
  const flash = await world.own.owner.fetch(fetcher(service), "/dashboard/members", { headers: HTML });
  pages.push(["the members page with a re-enrolment link", await flash.text()]);
  const audit = await world.own.owner.fetch(fetcher(service), "/dashboard/audit", { headers: HTML });
  assert.equal(audit.status, 200);
  pages.push(["the audit page", await audit.text()]);

  for (const [where, html] of pages) {
    assertInert(html, where);
    assert.ok(html.includes(escaped(NAMES.member)), `${where} shows the display name escaped`);
  }
  assert.match(pages[2]![1], new RegExp(`Nothing was changed for ${escapeRegExp(escaped(NAMES.member))}`));
  assert.match(
    pages[3]![1],
    new RegExp(`This link gives ${escapeRegExp(escaped(NAMES.member))} a new passkey`),
  );
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

async function postMembersForm(
  service: TestService,
  owner: TestBrowser,
  path: string,
  fields: [string, string][],
): Promise<Response> {
  const page = await (await owner.fetch(fetcher(service), "/dashboard/members", { headers: HTML })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
  return await owner.fetch(fetcher(service), path, {
    method: "POST",
    headers: { ...HTML, origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams([...fields, ["_csrf", csrf]]),
  });
}
