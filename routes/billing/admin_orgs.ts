import { Hono } from "hono";
import { z } from "zod";
import type { AskOrg } from "../../actors/billing/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import { isSs58Address } from "../../actors/kernel/mod.ts";
import type { BillingStore, SeqPage } from "../../storage/billing_store.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import { balanceJson, ledgerJson, orgJson, usageJson } from "./admin_org_views.ts";
import type { AppEnv } from "../http/app_env.ts";
import { CursorCodec } from "../http/cursor.ts";
import { jsonBody } from "../middleware/json_body.ts";
import { microAmount } from "./micro_amount.ts";
import { parseOrThrow, plainText, singleValuedQuery } from "../http/validation.ts";

export interface AdminOrgDeps {
  askOrg: AskOrg;
  orgs: Pick<OrgStore, "get">;
  billing: Pick<BillingStore, "listLedger" | "listUsage">;
  cursors: CursorCodec;
  /** The org's API keys without secrets (from the API-key area), shown by `GET /orgs/{orgId}`. */
  listKeys?: (orgId: string) => Promise<readonly unknown[]>;
}

/** Every org id this service makes (`org_<32 hex>`) fits; so do the short ids tests and imports use. */
const ORG_ID = /^[A-Za-z0-9_-]{1,64}$/;
const hotkey = z.string().refine(isSs58Address, "must be an SS58 address (checksum included)");

const createSchema = z.strictObject({ name: z.string().trim().pipe(plainText(100)) });
const creditSchema = z.strictObject({
  amountMicro: microAmount({ min: 1n }),
  reference: z.string().trim().pipe(plainText(128)),
});
const minerSchema = z.strictObject({ hotkey, default: z.boolean().optional() });
const pageSchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(1_000).optional(),
});

/**
 * The `orgId` of a path when it can name an org; else 404 at once, so that no actor is
 * activated and no storage key is built for it (a NUL or a 3,000-character id never reaches
 * storage).
 */
export function orgIdOf(param: string): string {
  if (!ORG_ID.test(param)) throw new ServiceError("not_found", "Organisation not found");
  return param;
}

/** The `orgId` of a path when that org exists; else 404. The one existence check of the admin API. */
export async function requireOrg(orgs: Pick<OrgStore, "get">, param: string): Promise<string> {
  const orgId = orgIdOf(param);
  if (!(await orgs.get(orgId))) throw new ServiceError("not_found", `Organisation not found: ${orgId}`);
  return orgId;
}

/**
 * The organisation half of the admin API (DESIGN §5), mounted at `/admin/v1/orgs` behind
 * `adminAuth`: create and show orgs, top up credits (idempotent by `reference`), register and
 * unregister miner hotkeys, and page through the ledger and usage (newest first).
 */
export function adminOrgRoutes(deps: AdminOrgDeps): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .route("/", orgAccountRoutes(deps))
    .route("/", orgMinerRoutes(deps.askOrg))
    .route("/", orgHistoryRoutes(deps));
}

/** Create, show and credit an org (its OrgActor answers 404 for an org that does not exist). */
function orgAccountRoutes(deps: AdminOrgDeps): Hono<AppEnv> {
  const { askOrg } = deps;
  return new Hono<AppEnv>()
    .post("/", jsonBody(createSchema), async (c) => {
      const orgId = `org_${crypto.randomUUID().replaceAll("-", "")}`;
      const view = await askOrg(orgId, { type: "create", name: c.req.valid("json").name });
      return c.json(orgJson(view, []), 201);
    })
    .get("/:orgId", async (c) => {
      const orgId = orgIdOf(c.req.param("orgId"));
      const view = await askOrg(orgId, { type: "get" });
      return c.json(orgJson(view, deps.listKeys ? await deps.listKeys(orgId) : undefined));
    })
    .post("/:orgId/credits", jsonBody(creditSchema), async (c) => {
      const { amountMicro, reference } = c.req.valid("json");
      const orgId = orgIdOf(c.req.param("orgId"));
      const reply = await askOrg(orgId, { type: "credit", amountMicro, reference });
      const body = {
        duplicate: reply.duplicate,
        entry: ledgerJson(reply.entry),
        ...balanceJson(reply.balance),
      };
      return c.json(body, reply.duplicate ? 200 : 201);
    });
}

/** Register (optionally as the default) and unregister an org's miner hotkeys. */
function orgMinerRoutes(askOrg: AskOrg): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .post("/:orgId/miners", jsonBody(minerSchema), async (c) => {
      const { hotkey, default: makeDefault } = c.req.valid("json");
      const orgId = orgIdOf(c.req.param("orgId"));
      const reply = await askOrg(orgId, { type: "registerMiner", hotkey, makeDefault: makeDefault ?? false });
      return c.json(orgJson(reply.view), reply.outcome === "registered" ? 201 : 200);
    })
    .delete("/:orgId/miners/:hotkey", async (c) => {
      const { hotkey: key } = parseOrThrow(z.object({ hotkey }), c.req.param(), "path");
      const reply = await askOrg(orgIdOf(c.req.param("orgId")), { type: "unregisterMiner", hotkey: key });
      return c.json(orgJson(reply.view));
    });
}

/** The ledger and the usage records, newest first, a keyset page at a time. */
function orgHistoryRoutes(deps: AdminOrgDeps): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .get("/:orgId/ledger", async (c) => {
      const orgId = await requireOrg(deps.orgs, c.req.param("orgId"));
      const page = await pageOf(deps.cursors, {
        query: c.req.queries(),
        scope: { list: "ledger", orgId },
        load: (p) => deps.billing.listLedger(orgId, p),
      });
      return c.json({ items: page.items.map(ledgerJson), nextCursor: page.nextCursor });
    })
    .get("/:orgId/usage", async (c) => {
      const orgId = await requireOrg(deps.orgs, c.req.param("orgId"));
      const page = await pageOf(deps.cursors, {
        query: c.req.queries(),
        scope: { list: "usage", orgId },
        load: (p) => deps.billing.listUsage(orgId, p),
      });
      return c.json({ items: page.items.map(usageJson), nextCursor: page.nextCursor });
    });
}

interface PageRequest<T> {
  /** The raw query (`c.req.queries()`): a repeated parameter is refused. */
  query: Record<string, string[]>;
  /** What the cursor is bound to. */
  scope: { list: string; orgId: string };
  load(page: SeqPage): Promise<T[]>;
}

/** One keyset page, newest first; the cursor carries the last `seq` and is bound to (list, org). */
async function pageOf<T extends { seq: number }>(
  cursors: CursorCodec,
  request: PageRequest<T>,
): Promise<{ items: T[]; nextCursor: string | null }> {
  const query = singleValuedQuery(request.query);
  const { limit, cursor } = parseOrThrow(pageSchema, query, "query parameters");
  const fingerprint = CursorCodec.fingerprint(request.scope);
  const beforeSeq = cursor === undefined ? undefined : cursors.decode<number>(fingerprint, cursor);
  const rows = await request.load({ limit: limit + 1, ...(beforeSeq === undefined ? {} : { beforeSeq }) });
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const nextCursor = rows.length > limit && last ? cursors.encode(fingerprint, last.seq) : null;
  return { items, nextCursor };
}
