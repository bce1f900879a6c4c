import { z } from "zod";
import type { EventQuery } from "../../actors/catalog/mod.ts";

/** A plain decimal number: no hex, binary, exponent or `Infinity` forms. */
const number = z.string().regex(/^-?\d+(\.\d+)?$/, "must be a decimal number").transform(Number);
const price = number.pipe(z.number().min(0).max(1));
const integer = (min: number, max: number) => number.pipe(z.number().int().min(min).max(max));
const flag = z.enum(["0", "1"], { error: "must be 0 or 1" }).transform((value) => value === "1");
const status = z.enum(["unresolved", "resolved", "voided"]);

/** Query parameters of `GET /v1/events` (spec §4); unknown parameters are refused. */
export const eventsQuerySchema = z.strictObject({
  format: z.enum(["json", "csv"]).default("json"),
  resolvedSince: z.iso.datetime({ offset: true, error: "must be an ISO 8601 instant" }).optional(),
  status: status.optional(),
  sortBy: z.enum(["endDate", "startDate", "volume", "liquidity", "resolvedAt"]).default("endDate"),
  max_price: price.optional(),
  min_price: price.optional(),
  volume: number.optional(),
  liquidity: number.optional(),
  hasResolution: flag.optional(),
  q: z.string().min(1).max(200).optional(),
  tagId: integer(-(2 ** 53) + 1, 2 ** 53 - 1).optional(),
  source: z.string().min(1).max(100).optional(),
  includeEnded: flag.optional(),
  cursor: z.string().min(1).max(2_048).optional(),
  limit: integer(1, 200).default(50),
}).superRefine((query, ctx) => {
  if (query.resolvedSince !== undefined && query.sortBy !== "resolvedAt") {
    ctx.addIssue({ code: "custom", path: ["resolvedSince"], message: "requires sortBy=resolvedAt" });
  }
  const settled = query.status === "resolved" || query.status === "voided";
  if (settled && query.includeEnded === false) {
    ctx.addIssue({
      code: "custom",
      path: ["includeEnded"],
      message: `cannot be 0 with status=${query.status}`,
    });
  }
  // hasResolution=1 selects "resolved" and 0 "unresolved"; every other status contradicts it.
  if (query.status !== undefined && query.hasResolution !== undefined) {
    const implied = query.hasResolution ? "resolved" : "unresolved";
    if (query.status !== implied) {
      ctx.addIssue({
        code: "custom",
        path: ["hasResolution"],
        message: `contradicts status=${query.status}`,
      });
    }
  }
  if (query.min_price !== undefined && query.max_price !== undefined && query.min_price > query.max_price) {
    ctx.addIssue({ code: "custom", path: ["min_price"], message: "must not exceed max_price" });
  }
});

export type EventsParams = z.infer<typeof eventsQuerySchema>;

/** The catalog query the parameters ask for. */
export function toEventQuery(params: EventsParams): EventQuery {
  const query: EventQuery = {
    sortBy: params.sortBy,
    includeEnded: params.includeEnded ?? false,
    limit: params.limit,
  };
  if (params.status !== undefined) query.status = params.status;
  if (params.resolvedSince !== undefined) query.resolvedSinceMs = Date.parse(params.resolvedSince);
  if (params.max_price !== undefined) query.maxPrice = params.max_price;
  if (params.min_price !== undefined) query.minPrice = params.min_price;
  if (params.volume !== undefined) query.minVolume = params.volume;
  if (params.liquidity !== undefined) query.minLiquidity = params.liquidity;
  if (params.hasResolution !== undefined) query.hasResolution = params.hasResolution;
  if (params.q !== undefined) query.q = params.q;
  if (params.tagId !== undefined) query.tagId = params.tagId;
  if (params.source !== undefined) query.source = params.source;
  return query;
}

/** What a cursor is bound to: every parameter that selects or orders results. */
export function queryFingerprintParams(params: EventsParams): Record<string, unknown> {
  const { cursor: _cursor, format: _format, ...rest } = params;
  return rest;
}
