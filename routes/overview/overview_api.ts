import { z } from "zod";
import { defineRoute, jsonResponse } from "../http/openapi.ts";
import { instant } from "../scoring/_query_values.ts";

const count = (description: string) => z.number().int().meta({ description });

export const OverviewSchema = z.object({
  updatedAt: instant.meta({ description: "When these figures were taken (they are served for 5 s)." }),
  eventsLive: count("Events `GET /v1/events` lists by default (`endDate` in the future)."),
  miners: count("Forecasting miners on the leaderboard (its `count`)."),
  minersScored: count("Of those, the ones with a counted prediction in the scoring window."),
  predictionsInWindow: count("Counted predictions on events resolved in the window, every miner's."),
  scoredEventsInWindow: count("Scored events resolved in the window."),
  windowDays: z.number().meta({ description: "The scoring window." }),
  lastScoringRun: instant.nullable().meta({
    description: "computedAt of the last scoring run's table; null before the first run.",
  }),
  stale: z.boolean().meta({
    description: "The leaderboard's `stale`: the metagraph or the prices are stale.",
  }),
}).meta({ id: "Overview" });

export const overviewRoute = defineRoute({
  method: "get",
  path: "/",
  tags: ["scoring"],
  summary: "The service's live figures",
  description: "What the home page shows, from the catalog and the leaderboard. See docs/pages.md.",
  access: "public",
  responses: { 200: jsonResponse(OverviewSchema, "The figures, cached 5 s.") },
});
