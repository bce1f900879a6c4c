import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { AskOrg, LowBalanceReply } from "../../actors/billing/mod.ts";
import type { AppEnv } from "../http/app_env.ts";
import { ASKS_ACTOR, defineRoute, jsonBody, jsonResponse, openApiApp } from "../http/openapi.ts";
import { orgIdParam } from "../http/path_ids.ts";
import { microString } from "../http/shared_schemas.ts";
import type { ApiKeyAccess, KeyEnv } from "../middleware/api_key_auth.ts";
import { sendJson } from "../http/answer.ts";
import { microAmount } from "./micro_amount.ts";

export const LowBalanceSchema = z.object({
  thresholdMicro: microString("Warn below this available amount; null: no warning.").nullable(),
  availableMicro: microString("Balance minus holds, now."),
  below: z.boolean().meta({ description: "A threshold is set and the available amount is under it." }),
}).meta({ id: "LowBalance" });

const setSchema = z.strictObject({
  thresholdMicro: microAmount({ min: 0n }).nullable().meta({
    description: "Micro-units (a decimal string), or null to stop warning.",
  }),
});

const TAGS = ["admin: organisations"];
const orgPath = z.object({ orgId: orgIdParam });

const getAdminRoute = defineRoute({
  method: "get",
  path: "/{orgId}/low-balance",
  tags: TAGS,
  summary: "The organisation's low-balance warning",
  access: "admin",
  errors: ASKS_ACTOR,
  request: { params: orgPath },
  responses: { 200: jsonResponse(LowBalanceSchema, "The threshold and the available amount now.") },
});

const setAdminRoute = defineRoute({
  method: "put",
  path: "/{orgId}/low-balance",
  tags: TAGS,
  summary: "Set or clear the organisation's low-balance threshold",
  access: "admin",
  errors: ASKS_ACTOR,
  request: { params: orgPath, body: jsonBody(setSchema) },
  responses: { 200: jsonResponse(LowBalanceSchema, "Set: the threshold and the available amount now.") },
});

export function lowBalanceJson(reply: LowBalanceReply) {
  return {
    thresholdMicro: reply.thresholdMicro?.toString() ?? null,
    availableMicro: reply.availableMicro.toString(),
    below: reply.below,
  };
}

/**
 * `GET` and `PUT /admin/v1/orgs/{orgId}/low-balance` (docs/billing.md, "Low-balance warning"): the
 * operator reads and sets the threshold through the org's OrgActor, as an owner will in the
 * dashboard.
 */
export function adminLowBalanceRoutes(askOrg: AskOrg): OpenAPIHono<AppEnv> {
  return openApiApp<AppEnv>()
    .openapi(getAdminRoute, async (c) => {
      const { orgId } = c.req.valid("param");
      return c.json(lowBalanceJson(await askOrg(orgId, { type: "lowBalance" })), 200);
    })
    .openapi(setAdminRoute, async (c) => {
      const { orgId } = c.req.valid("param");
      const { thresholdMicro } = c.req.valid("json");
      return c.json(lowBalanceJson(await askOrg(orgId, { type: "setLowBalance", thresholdMicro })), 200);
    });
}

/** `GET /v1/credits/low-balance` (scope billing:read): the key's organisation's warning. */
export function lowBalanceKeyRoutes(deps: { access: ApiKeyAccess; askOrg: AskOrg }): OpenAPIHono<KeyEnv> {
  const route = defineRoute({
    method: "get",
    path: "/low-balance",
    tags: ["billing"],
    summary: "The organisation's low-balance warning",
    access: { apiKey: "billing:read", keys: deps.access },
    errors: ASKS_ACTOR,
    responses: { 200: jsonResponse(LowBalanceSchema, "The threshold and the available amount now.") },
  });
  return openApiApp<KeyEnv>().openapi(route, async (c) => {
    const reply = await deps.askOrg(c.get("apiKey").orgId, { type: "lowBalance" });
    return sendJson(c, lowBalanceJson(reply), 200);
  });
}
