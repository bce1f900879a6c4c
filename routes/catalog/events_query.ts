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
  format: z.enum(["json", "csv"]).default("json").meta({
    description: "`csv`: the next cursor is in `X-Next-Cursor`.",
  }),
  resolvedSince: z.iso.datetime({ offset: true, error: "must be an ISO 8601 instant" }).optional()
    .meta({ description: "Resolutions at or after this instant; requires `sortBy=resolvedAt`." }),
  status: status.optional().meta({ description: "`resolved` and `voided` also list ended markets." }),
  sortBy: z.enum(["endDate", "startDate", "volume", "liquidity", "resolvedAt"]).default("endDate")
    .meta({ description: "Dates ascending, volume and liquidity descending; ties by id." }),
  max_price: price.optional().meta({ description: "0..1: every current outcome price is at most this." }),
  min_price: price.optional().meta({ description: "0..1: every current outcome price is at least this." }),
  volume: number.optional().meta({ description: "Least `volumeUsd`." }),
  liquidity: number.optional().meta({ description: "Least `liquidityUsd`." }),
  hasResolution: flag.optional().meta({ description: "`1`: only resolved; `0`: only unresolved." }),
  q: z.string().min(1).max(200).optional()
    .meta({ description: "Case-insensitive substring of the question or description." }),
  tagId: integer(-(2 ** 53) + 1, 2 ** 53 - 1).optional().meta({
    description: "A tag the event had at admission.",
  }),
  source: z.string().min(1).max(100).optional().meta({
    description: "Exact source name, e.g. `polymarket`.",
  }),
  includeEnded: flag.optional().meta({
    description: "`1` lists events past their end date too (default `0`).",
  }),
  cursor: z.string().min(1).max(2_048).optional()
    .meta({ description: "`nextCursor` of the previous page, with the same other parameters." }),
  limit: integer(1, 200).default(50).meta({ description: "1..200." }),
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
