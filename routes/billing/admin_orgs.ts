import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AskOrg } from "../../actors/billing/mod.ts";
import type { BillingStore, SeqPage } from "../../storage/billing_store.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import type { ApiKeySummary } from "../../storage/api_key_store.ts";
import { balanceJson, ledgerJson, orgJson, usageJson } from "./admin_org_views.ts";
import type { AppEnv } from "../http/app_env.ts";
import { CursorCodec } from "../http/cursor.ts";
import { openApiApp } from "../http/openapi.ts";
import { requireOrg } from "../http/path_ids.ts";
import {
  createOrgRoute,
  creditOrgRoute,
  getOrgRoute,
  ledgerRoute,
  registerMinerRoute,
  unregisterMinerRoute,
  usageRoute,
} from "./admin_orgs_api.ts";

export interface AdminOrgDeps {
  askOrg: AskOrg;
  orgs: Pick<OrgStore, "get">;
  billing: Pick<BillingStore, "listLedger" | "listUsage">;
  cursors: CursorCodec;
  /** The org's API keys without secrets (from the API-key area), shown by `GET /orgs/{orgId}`. */
  listKeys?: (orgId: string) => Promise<readonly ApiKeySummary[]>;
}

/**
 * The organisation half of the admin API (docs/billing.md), mounted at `/admin/v1/orgs` behind
 * `adminAuth`: create and show orgs, top up credits (idempotent by `reference`), register and
 * unregister miner hotkeys, and page through the ledger and usage (newest first).
 */
export function adminOrgRoutes(deps: AdminOrgDeps): OpenAPIHono<AppEnv> {
  const app = openApiApp<AppEnv>();
  app.route("/", orgAccountRoutes(deps));
  app.route("/", orgMinerRoutes(deps.askOrg));
  app.route("/", orgHistoryRoutes(deps));
  return app;
}

/** Create, show and credit an org (its OrgActor answers 404 for an org that does not exist). */
function orgAccountRoutes(deps: AdminOrgDeps): OpenAPIHono<AppEnv> {
  const { askOrg } = deps;
  return openApiApp<AppEnv>()
    .openapi(createOrgRoute, async (c) => {
      const orgId = `org_${crypto.randomUUID().replaceAll("-", "")}`;
      const view = await askOrg(orgId, { type: "create", name: c.req.valid("json").name });
      return c.json(orgJson(view, []), 201);
    })
    .openapi(getOrgRoute, async (c) => {
      const { orgId } = c.req.valid("param");
      const view = await askOrg(orgId, { type: "get" });
      return c.json(orgJson(view, deps.listKeys ? await deps.listKeys(orgId) : undefined), 200);
    })
    .openapi(creditOrgRoute, async (c) => {
      const { amountMicro, reference } = c.req.valid("json");
      const { orgId } = c.req.valid("param");
      const reply = await askOrg(orgId, { type: "credit", amountMicro, reference });
      const body = {
        duplicate: reply.duplicate,
        entry: ledgerJson(reply.entry),
        ...balanceJson(reply.balance),
      };
      return reply.duplicate ? c.json(body, 200) : c.json(body, 201);
    });
}

/** Register (optionally as the default) and unregister an org's miner hotkeys. */
function orgMinerRoutes(askOrg: AskOrg): OpenAPIHono<AppEnv> {
  return openApiApp<AppEnv>()
    .openapi(registerMinerRoute, async (c) => {
      const { hotkey, default: makeDefault } = c.req.valid("json");
      const { orgId } = c.req.valid("param");
      const reply = await askOrg(orgId, { type: "registerMiner", hotkey, makeDefault: makeDefault ?? false });
      const view = orgJson(reply.view);
      return reply.outcome === "registered" ? c.json(view, 201) : c.json(view, 200);
    })
    .openapi(unregisterMinerRoute, async (c) => {
      const { orgId, hotkey } = c.req.valid("param");
      const reply = await askOrg(orgId, { type: "unregisterMiner", hotkey });
      return c.json(orgJson(reply.view), 200);
    });
}

/** The ledger and the usage records, newest first, a keyset page at a time. */
function orgHistoryRoutes(deps: AdminOrgDeps): OpenAPIHono<AppEnv> {
  return openApiApp<AppEnv>()
    .openapi(ledgerRoute, async (c) => {
      const orgId = await requireOrg(deps.orgs, c.req.valid("param").orgId);
      const page = await pageOf(deps.cursors, {
        query: c.req.valid("query"),
        scope: { list: "ledger", orgId },
        load: (p) => deps.billing.listLedger(orgId, p),
      });
      return c.json({ items: page.items.map(ledgerJson), nextCursor: page.nextCursor }, 200);
    })
    .openapi(usageRoute, async (c) => {
      const orgId = await requireOrg(deps.orgs, c.req.valid("param").orgId);
      const page = await pageOf(deps.cursors, {
        query: c.req.valid("query"),
        scope: { list: "usage", orgId },
        load: (p) => deps.billing.listUsage(orgId, p),
      });
      return c.json({ items: page.items.map(usageJson), nextCursor: page.nextCursor }, 200);
    });
}

export interface PageRequest<T> {
  /** The validated query (`pageSchema`). */
  query: { limit: number; cursor?: string | undefined };
  /** What the cursor is bound to. */
  scope: { list: string; orgId: string };
  load(page: SeqPage): Promise<T[]>;
}

/** One keyset page, newest first; the cursor carries the last `seq` and is bound to (list, org). */
export async function pageOf<T extends { seq: number }>(
  cursors: CursorCodec,
  request: PageRequest<T>,
): Promise<{ items: T[]; nextCursor: string | null }> {
  const { limit, cursor } = request.query;
  const fingerprint = CursorCodec.fingerprint(request.scope);
  const beforeSeq = cursor === undefined ? undefined : cursors.decode<number>(fingerprint, cursor);
  const rows = await request.load({ limit: limit + 1, ...(beforeSeq === undefined ? {} : { beforeSeq }) });
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const nextCursor = rows.length > limit && last ? cursors.encode(fingerprint, last.seq) : null;
  return { items, nextCursor };
}
