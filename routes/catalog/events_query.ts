import { z } from "zod";
import type { EventQuery } from "../../actors/catalog/mod.ts";
import { boundedInteger, integerParameter, numberParameter, parseOrThrow } from "../http/validation.ts";
import { CursorCodec } from "../http/cursor.ts";

/** A plain decimal number: no hex, binary, exponent or `Infinity` forms. */
const number = z.string().regex(/^-?\d+(\.\d+)?$/, "must be a decimal number").transform(Number);
const price = number.pipe(z.number().min(0).max(1)).meta(numberParameter({ min: 0, max: 1 }));
/** A decimal query number, documented as a number (OpenAPI serializes query values). */
const amount = number.meta(numberParameter());
const integer = (min: number, max: number) =>
  number.pipe(boundedInteger(min, max)).meta(integerParameter(min, max));
const flag = z.enum(["0", "1"], { error: "must be 0 or 1" }).transform((value) => value === "1");
const status = z.enum(["unresolved", "resolved", "voided"]);

/** Query parameters of `GET /v1/events` (docs/events.md); unknown parameters are refused. */
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
  volume: amount.optional().meta({ description: "Least `volumeUsd`." }),
  liquidity: amount.optional().meta({ description: "Least `liquidityUsd`." }),
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
  limit: integer(1, 200).default(50).meta({ default: 50, description: "1..200." }),
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

/** A parsed `GET /v1/events` request: its parameters, the catalog query, the cursor binding. */
export interface EventsRequest {
  params: EventsParams;
  query: EventQuery;
  /** `CursorCodec.fingerprint` of every parameter that selects or orders results. */
  fingerprint: string;
}

/** The request `params` make (parameters already valid). */
export function eventsRequest(params: EventsParams): EventsRequest {
  const { cursor: _cursor, format: _format, ...selecting } = params;
  return { params, query: toEventQuery(params), fingerprint: CursorCodec.fingerprint(selecting) };
}

/** The catalog query the parameters ask for. */
function toEventQuery(params: EventsParams): EventQuery {
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

/** How many distinct parameter sets (cursor aside) a parser remembers; it starts over when full. */
const REMEMBERED_QUERIES = 1_024;

/**
 * Parses `GET /v1/events` query parameters with `eventsQuerySchema`, remembering each valid
 * query but its cursor (with its catalog query and fingerprint, which the cursor is no part of): a
 * client walking pages sends the same parameters with a new cursor each time. A remembered query
 * whose cursor passes the schema's own cursor rule is answered without a whole parse (no other
 * rule reads the cursor); anything else, and every error, goes through the whole schema.
 */
export function eventsRequestParser(): (query: Record<string, string>) => EventsRequest {
  const remembered = new Map<string, EventsRequest>();
  return (query) => {
    const { cursor, ...rest } = query;
    const key = JSON.stringify(rest);
    const known = remembered.get(key);
    if (known && cursor === undefined) return known;
    if (known && cursorRule.safeParse(cursor).success) {
      return { ...known, params: { ...known.params, cursor } };
    }
    const request = eventsRequest(parseOrThrow(eventsQuerySchema, query, "query parameters"));
    const { cursor: _cursor, ...withoutCursor } = request.params;
    if (remembered.size >= REMEMBERED_QUERIES) remembered.clear();
    remembered.set(key, Object.freeze({ ...request, params: Object.freeze(withoutCursor) }));
    return request;
  };
}

const cursorRule = eventsQuerySchema.shape.cursor;
