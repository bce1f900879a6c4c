import { z } from "zod";
import { defineRoute, jsonResponse } from "../http/openapi.ts";
import { instant, queryHotkey, queryInteger, queryIntegerOr } from "./_query_values.ts";
import { ScoredEventSchema } from "../http/shared_schemas.ts";

export const ScoredEventPage = z.object({
  items: z.array(ScoredEventSchema),
  nextCursor: z.string().nullable().meta({ description: "Pass back as `cursor`; null on the last page." }),
  meta: z.object({
    computedAt: instant.meta({ description: "When this page was computed." }),
    scorerVersion: z.string(),
  }),
}).meta({ id: "ScoredEventPage" });

/** Query of `GET /v1/events/scored` (docs/scoring.md); unknown parameters are refused. */
export const scoredEventsQuerySchema = z.strictObject({
  miners: queryIntegerOr(0, 50, 10).meta({
    description: "Miner rows per event, 0..50, default 10; 0: stats only (plus the requested miner's row).",
  }),
  uid: queryInteger(0, 65_535).optional().meta({
    description: "Only events scored for the hotkey that holds this uid now. Not with `minerHotkey`.",
  }),
  minerHotkey: queryHotkey.optional().meta({
    description: "Only events this hotkey was scored on. Not with `uid`.",
  }),
  cursor: z.string().min(1).max(2_048).optional().meta({
    description: "`nextCursor` of the previous page, with the same other parameters.",
  }),
  limit: queryIntegerOr(1, 25, 10).meta({
    description: "Events per page, 1..25, default 10.",
  }),
}).superRefine((query, ctx) => {
  if (query.uid !== undefined && query.minerHotkey !== undefined) {
    ctx.addIssue({ code: "custom", path: ["uid"], message: "not allowed together with minerHotkey" });
  }
});

export type ScoredEventsParams = z.infer<typeof scoredEventsQuerySchema>;

export const scoredEventsRoute = defineRoute({
  method: "get",
  path: "/scored",
  tags: ["scoring"],
  summary: "Recently scored events with per-miner results",
  description: "Resolved events whose predictions were scored, newest resolution first; keyset pages. " +
    "See docs/scoring.md.",
  access: "public",
  request: { query: scoredEventsQuerySchema },
  responses: {
    200: jsonResponse(ScoredEventPage, "A page of scored events (the default query is cached 60 s)."),
  },
});
