/**
 * Checks enumerated from the router: every route of the dashboard, as the service app lists it,
 * must have an entry in DASHBOARD_ROUTES (route_table.ts), so a new route cannot be missed. Then
 * every state-changing route and owner's page is tried as a viewer (403 `insufficient_role` unless
 * listed as any member's, with the reason), every state-changing route without the CSRF token,
 * from a foreign `Origin` and with none (403 `csrf_refused`); every route naming a resource with
 * another organisation's (404); every form with bad input (400, the field named); every change
 * made by an owner (its audit entry, by that member); and every route that is not public while
 * signed out (the sign-in page, or 401). A refused request saves nothing: the organisation, its
 * log, keys, members, passkeys, invitations and miners are as they were.
 */
import assert from "node:assert/strict";
import { changesState } from "../../../routes/dashboard/csrf.ts";
import { ADMIN_TOKEN } from "../../support/access.ts";
import { ORIGIN, TestBrowser } from "../../support/dashboard.ts";
import { openPgStorage } from "../../../storage/postgres/pg_storage.ts";
import type { Storage } from "../../../storage/storage.ts";
import { openTestDatabase } from "../../support/test_postgres.ts";
import { openTestService, type TestService } from "../../support/test_service.ts";
import {
  type BadInput,
  buildWorld,
  DASHBOARD_ROUTES,
  type Probe,
  type RouteCase,
  type World,
} from "./route_table.ts";

const ON = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: ORIGIN };
const TABLE = "DASHBOARD_ROUTES in tests/dashboard/security/route_table.ts";

/** Every dashboard route of the service app, "METHOD path", middleware left out. */
function dashboardRoutesOf(service: TestService): string[] {
  const routes = new Set<string>();
  for (const { method, path } of service.app.routes) {
    if (method !== "ALL" && (path === "/dashboard" || path.startsWith("/dashboard/"))) {
      routes.add(`${method} ${path}`);
    }
  }
  return [...routes].sort();
}

function split(route: string): { method: string; pattern: string } {
  const [method = "", pattern = ""] = route.split(" ");
  return { method, pattern };
}

/** True when `path` (its query dropped) is one the route's pattern matches. */
function matches(pattern: string, path: string): boolean {
  const source = pattern.split("/").map((part) =>
    part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  )
    .join("/");
  return new RegExp(`^${source}$`).test(path.split("?")[0]!);
}

const tokens = new WeakMap<TestBrowser, string>();

/** The browser's CSRF token, as its pages give it (the home page signed in, the sign-in page signed out). */
async function csrfOf(service: TestService, browser: TestBrowser): Promise<string> {
  const known = tokens.get(browser);
  if (known !== undefined) return known;
  const fetcher = (path: string, init?: RequestInit) => service.request(path, init);
  const signedIn = await browser.fetch(fetcher, "/dashboard", { headers: { accept: "text/html" } });
  const html = signedIn.status === 200
    ? await signedIn.text()
    : await (await browser.fetch(fetcher, "/dashboard/sign-in", { headers: { accept: "text/html" } })).text();
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? /data-csrf="([^"]+)"/.exec(html)?.[1];
  if (token === undefined) throw new Error("No CSRF token on the browser's page");
  tokens.set(browser, token);
  return token;
}

interface Sending {
  /** The browser's token (default), none, or another. */
  csrf?: "missing" | { token: string };
  /** The `Origin` header; null sends none. */
  origin?: string | null;
}

/** Sends `probe` with the route's method as `browser` would: a state change with its token and Origin. */
async function send(
  world: World,
  browser: TestBrowser,
  method: string,
  probe: Probe,
  sending: Sending = {},
): Promise<Response> {
  const { service } = world;
  const fetcher = (path: string, init?: RequestInit) => service.request(path, init);
  const headers = new Headers({ accept: "text/html" });
  if (!changesState(method)) return await browser.fetch(fetcher, probe.path, { method, headers });
  const origin = sending.origin === undefined ? ORIGIN : sending.origin;
  if (origin !== null) headers.set("origin", origin);
  const token = sending.csrf === "missing"
    ? undefined
    : typeof sending.csrf === "object"
    ? sending.csrf.token
    : await csrfOf(service, browser);
  let body: string;
  if (probe.json !== undefined) {
    headers.set("content-type", "application/json");
    if (token !== undefined) headers.set("x-csrf-token", token);
    body = JSON.stringify(probe.json);
  } else {
    headers.set("content-type", "application/x-www-form-urlencoded");
    body = new URLSearchParams([...(probe.form ?? []), ...(token === undefined ? [] : [["_csrf", token]])])
      .toString();
  }
  return await browser.fetch(fetcher, probe.path, { method, headers, body });
}

/** The entry's foreign requests (none when its parameter names nothing of an organisation). */
function foreignOf(entry: RouteCase, world: World): Probe[] {
  if (typeof entry.foreign !== "function") return [];
  return [entry.foreign(world)].flat();
}

/** The entry's bad inputs (none when the route takes no input a member types). */
function badInputsOf(entry: RouteCase): BadInput[] {
  if (!entry.badInput || "none" in entry.badInput) return [];
  return [entry.badInput].flat();
}

/** What a state change of an organisation would change: its record, log, keys, members, passkeys, invitations and miners. */
async function savedOfOrg(world: World, orgId: string) {
  const { storage, clock } = world.service;
  const members = await storage.members.listMembers(orgId);
  return {
    org: await storage.orgs.get(orgId),
    audit: await storage.audit.list(orgId, { limit: 1000 }),
    keys: await storage.apiKeys.listByOrg(orgId),
    members,
    passkeys: await Promise.all(members.map((member) => storage.members.listCredentials(member.id))),
    invitations: await storage.members.listInvitations(orgId, { nowMs: clock.now() }),
    miners: await storage.orgs.listMiners(orgId),
  };
}

/** What is saved of both organisations of the world. */
async function savedOf(world: World) {
  return { own: await savedOfOrg(world, world.own.orgId), other: await savedOfOrg(world, world.other.orgId) };
}

async function errorOf(answer: Response): Promise<{ code?: string; reason?: string }> {
  const text = await answer.text();
  try {
    const body = JSON.parse(text);
    return { code: body.error?.code, reason: body.error?.details?.reason };
  } catch {
    // A page's refusal is a page: its code rides on the heading.
    const code = /<h1 data-error-code="([a-z_]+)"/.exec(text)?.[1];
    return code === undefined ? {} : { code };
  }
}

Deno.test("every dashboard route the router lists has an entry in the route table, and every entry a route", async () => {
  await using service = await openTestService({ env: ON });
  const routes = dashboardRoutesOf(service);
  assert.ok(routes.length >= 10, `only ${routes.length} routes found: is the dashboard on?`);
  const missing = routes.filter((route) => !(route in DASHBOARD_ROUTES));
  assert.deepEqual(
    missing,
    [],
    `Add these routes to ${TABLE} (who may use them, and their requests):\n${missing.join("\n")}`,
  );
  const stale = Object.keys(DASHBOARD_ROUTES).filter((route) => !routes.includes(route));
  assert.deepEqual(stale, [], `These entries of ${TABLE} name no route any more: remove them`);
  for (const route of routes) {
    const { pattern } = split(route);
    const entry = DASHBOARD_ROUTES[route]!;
    if (changesState(split(route).method)) {
      assert.ok(
        entry.audit,
        `${route} changes state: give its entry in ${TABLE} its audit action (or why none)`,
      );
      assert.ok(
        entry.badInput,
        `${route} changes state: give its entry in ${TABLE} a bad input (or why none)`,
      );
    }
    if (pattern.includes(":")) {
      assert.ok(
        entry.foreign,
        `${route} names a resource: give its entry in ${TABLE} a foreign request (or why none)`,
      );
    }
  }
});

/** The checks of every route of the table, on `service` (a fresh store). */
async function routeChecks(t: Deno.TestContext, service: TestService): Promise<void> {
  const world = await buildWorld(service);
  const routes = dashboardRoutesOf(service).filter((route) => route in DASHBOARD_ROUTES);

  await t.step("each entry's requests are requests of its route", () => {
    for (const route of routes) {
      const { pattern } = split(route);
      const entry = DASHBOARD_ROUTES[route]!;
      assert.ok(matches(pattern, entry.own(world).path), `${route}: own request ${entry.own(world).path}`);
      for (
        const probe of [
          ...foreignOf(entry, world),
          ...badInputsOf(entry).map((bad) => bad.probe(world)),
        ]
      ) {
        assert.ok(matches(pattern, probe.path), `${route}: request ${probe.path}`);
      }
    }
  });

  await t.step(
    "every state-changing route and owner's page as a viewer: 403 insufficient_role, unless any member's",
    async () => {
      for (const route of routes) {
        const entry = DASHBOARD_ROUTES[route]!;
        if (entry.access.kind !== "owner") {
          assert.ok(entry.access.reason.length > 0, `${route}: say why a viewer may`);
          continue;
        }
        const before = await savedOf(world);
        const answer = await send(world, world.own.viewer, split(route).method, entry.own(world));
        assert.equal(answer.status, 403, route);
        assert.equal((await errorOf(answer)).code, "insufficient_role", route);
        assert.deepEqual(await savedOf(world), before, `${route}: nothing saved`);
      }
    },
  );

  await t.step("every route naming a resource, with another organisation's: 404", async () => {
    for (const route of routes) {
      for (const probe of foreignOf(DASHBOARD_ROUTES[route]!, world)) {
        const before = await savedOf(world);
        const answer = await send(world, world.own.owner, split(route).method, probe);
        assert.equal(answer.status, 404, `${route} ${probe.path}`);
        const { code } = await errorOf(answer);
        assert.ok(code === undefined || code === "not_found", `${route}: ${code}`);
        assert.deepEqual(await savedOf(world), before, `${route} ${probe.path}: nothing saved`);
      }
    }
  });

  await t.step(
    "every state-changing route without the CSRF token, with another's, from a foreign Origin, with none: 403",
    async () => {
      // Another browser's token: the viewer's, and a signed-out browser's.
      const others = [await csrfOf(service, world.own.viewer), await csrfOf(service, new TestBrowser())];
      const cases: Array<[Sending, string]> = [
        [{ csrf: "missing" }, "token_missing"],
        ...others.map((token): [Sending, string] => [{ csrf: { token } }, "token_wrong"]),
        [{ origin: "https://evil.example" }, "origin_foreign"],
        [{ origin: "null" }, "origin_foreign"],
        [{ origin: null }, "origin_missing"],
      ];
      for (const route of routes.filter((route) => changesState(split(route).method))) {
        const entry = DASHBOARD_ROUTES[route]!;
        for (const [sending, reason] of cases) {
          const answer = await send(world, world.own.owner, split(route).method, entry.own(world), sending);
          assert.equal(answer.status, 403, `${route} ${reason}`);
          assert.deepEqual(await errorOf(answer), { code: "csrf_refused", reason }, `${route} ${reason}`);
        }
      }
    },
  );

  await t.step(
    "every form with bad input, as an owner: the form again, 400, the field named, nothing saved",
    async () => {
      for (const route of routes.filter((route) => changesState(split(route).method))) {
        for (const bad of badInputsOf(DASHBOARD_ROUTES[route]!)) {
          const probe = bad.probe(world);
          const before = await savedOf(world);
          const answer = await send(world, world.own.owner, split(route).method, probe);
          assert.equal(answer.status, 400, `${route} ${JSON.stringify(probe.form)}`);
          assert.match(
            await answer.text(),
            new RegExp(`<strong>${bad.field}</strong>`),
            `${route} names ${bad.field}`,
          );
          assert.deepEqual(
            await savedOf(world),
            before,
            `${route} ${JSON.stringify(probe.form)}: nothing saved`,
          );
        }
      }
    },
  );

  await t.step(
    "every state-changing route with an audit action, made by an owner: its entry, by that member",
    async () => {
      const token = world.own.owner.cookies.get("__Host-fgw_session")!;
      const ownerId = (await service.dashboard.sessions.resume(token))!.member.id;
      // In the table's order: a key is rotated before it is revoked.
      const inOrder = Object.keys(DASHBOARD_ROUTES).filter((route) => routes.includes(route));
      for (const route of inOrder.filter((route) => changesState(split(route).method))) {
        const entry = DASHBOARD_ROUTES[route]!;
        if (typeof entry.audit !== "string") continue;
        const before = (await service.storage.audit.list(world.own.orgId, { limit: 1000 })).length;
        const answer = await send(world, world.own.owner, split(route).method, entry.own(world));
        assert.ok(answer.status < 400, `${route}: ${answer.status}`);
        const log = await service.storage.audit.list(world.own.orgId, { limit: 1000 });
        assert.equal(log.length, before + 1, `${route} writes one audit entry`);
        assert.equal(log[0]!.action, entry.audit, route);
        assert.deepEqual(log[0]!.by, { kind: "member", memberId: ownerId }, route);
      }
    },
  );

  await t.step("every route that is not public, signed out: the sign-in page (a page) or 401", async () => {
    for (const route of routes) {
      const entry = DASHBOARD_ROUTES[route]!;
      if (entry.access.kind === "public") continue;
      const { method } = split(route);
      const answer = await send(world, new TestBrowser(), method, entry.own(world));
      if (method === "GET") {
        assert.equal(answer.status, 303, route);
        assert.equal(answer.headers.get("location"), "/dashboard/sign-in", route);
      } else if (route !== "POST /dashboard/sign-out") {
        assert.equal(answer.status, 401, route);
        assert.equal((await errorOf(answer)).code, "unauthenticated", route);
      }
    }
  });
}

/** A fresh store of each adapter: the dashboard's routes refuse alike on both. */
const STORES: Array<["kv" | "postgres", () => Promise<{ storage?: Storage; close(): Promise<void> }>]> = [
  ["kv", () => Promise.resolve({ close: () => Promise.resolve() })],
  ["postgres", async () => {
    const db = await openTestDatabase();
    try {
      return { storage: await openPgStorage(db.url, { maxConnections: db.maxConnections }), close: db.close };
    } catch (error) {
      await db.close();
      throw error;
    }
  }],
];

for (const [kind, open] of STORES) {
  Deno.test({
    name:
      `router-enumerated checks: viewer, other organisation, CSRF and Origin, bad input, audit, signed out [${kind}]`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async (t) => {
      const store = await open();
      try {
        await using service = await openTestService({
          env: ON,
          ...(store.storage ? { storage: store.storage } : {}),
        });
        await routeChecks(t, service);
      } finally {
        await store.close();
      }
    },
  });
}
