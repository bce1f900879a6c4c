import { z } from "zod";
import { isSs58Address } from "../../actors/kernel/mod.ts";
import { ASKS_ACTOR, defineRoute, jsonBody, jsonResponse } from "../http/openapi.ts";
import { minerHotkeyParam, orgIdParam } from "../http/path_ids.ts";
import { freeText } from "../http/validation.ts";
import { CreditResultSchema, LedgerEntrySchema, OrgSchema, UsageRecordSchema } from "./admin_org_views.ts";
import { microAmount } from "./micro_amount.ts";

const hotkey = z.string().refine(isSs58Address, "must be an SS58 address (checksum included)")
  .meta({
    description: "A miner hotkey: an SS58 address.",
    example: "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY",
  });

const orgPath = z.object({ orgId: orgIdParam });

const createSchema = z.strictObject({ name: freeText({ max: 100 }) });
const creditSchema = z.strictObject({
  amountMicro: microAmount({ min: 1n }),
  reference: freeText({ max: 128 })
    .meta({
      description: "Your reference for this top-up (e.g. an invoice id); a repeat is not credited twice.",
    }),
});
const minerSchema = z.strictObject({
  hotkey,
  default: z.boolean().optional().meta({ description: "Make it the org's default miner." }),
});

/** Query of the ledger and usage listings (a repeated parameter is refused). */
export const pageSchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(1_000).optional().meta({ description: "`nextCursor` of the previous page." }),
});

const TAGS = ["admin: organisations"];

export const createOrgRoute = defineRoute({
  method: "post",
  path: "/",
  tags: TAGS,
  summary: "Create an organisation",
  access: "admin",
  errors: ASKS_ACTOR,
  request: { body: jsonBody(createSchema) },
  responses: { 201: jsonResponse(OrgSchema, "Created, with no balance, miners or keys.") },
});

export const getOrgRoute = defineRoute({
  method: "get",
  path: "/{orgId}",
  tags: TAGS,
  summary: "Show an organisation, its balance, miners and API keys",
  access: "admin",
  errors: ASKS_ACTOR,
  request: { params: orgPath },
  responses: { 200: jsonResponse(OrgSchema, "The organisation.") },
});

export const creditOrgRoute = defineRoute({
  method: "post",
  path: "/{orgId}/credits",
  tags: TAGS,
  summary: "Top up credits (idempotent by reference)",
  access: "admin",
  errors: ASKS_ACTOR,
  request: { params: orgPath, body: jsonBody(creditSchema) },
  responses: {
    201: jsonResponse(CreditResultSchema, "Credited."),
    200: jsonResponse(CreditResultSchema, "That reference was credited before: nothing changed."),
  },
});

export const registerMinerRoute = defineRoute({
  method: "post",
  path: "/{orgId}/miners",
  tags: TAGS,
  summary: "Register a miner hotkey (optionally as the default)",
  access: "admin",
  errors: ASKS_ACTOR,
  request: { params: orgPath, body: jsonBody(minerSchema) },
  responses: {
    201: jsonResponse(OrgSchema, "Registered."),
    200: jsonResponse(OrgSchema, "Already registered to this org (the default is updated as asked)."),
  },
});

export const unregisterMinerRoute = defineRoute({
  method: "delete",
  path: "/{orgId}/miners/{hotkey}",
  tags: TAGS,
  summary: "Unregister a miner hotkey",
  access: "admin",
  errors: [...ASKS_ACTOR],
  request: {
    params: z.object({
      orgId: orgIdParam,
      hotkey: minerHotkeyParam,
    }),
  },
  responses: { 200: jsonResponse(OrgSchema, "The organisation without the hotkey.") },
});

function historyRoute<const L extends string, S extends z.ZodType>(list: L, item: S, summary: string) {
  return defineRoute({
    method: "get",
    path: `/{orgId}/${list}`,
    tags: TAGS,
    summary,
    access: "admin",
    request: { params: orgPath, query: pageSchema },
    responses: {
      200: jsonResponse(
        z.object({ items: z.array(item), nextCursor: z.string().nullable() }),
        "A page, newest first.",
      ),
    },
  });
}

export const ledgerRoute = historyRoute("ledger", LedgerEntrySchema, "Page through the ledger, newest first");
export const usageRoute = historyRoute(
  "usage",
  UsageRecordSchema,
  "Page through usage records, newest first",
);
