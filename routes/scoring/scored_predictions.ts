import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Clock } from "../../actors/kernel/mod.ts";
import { type ScoredPredictionsDeps, scoredPredictionsPage } from "../../actors/scoring/mod.ts";
import type { SignatureGuard } from "../../actors/validators/mod.ts";
import type { ScoredCursor } from "../../storage/assignment_store.ts";
import { CursorCodec } from "../http/cursor.ts";
import { openApiApp } from "../http/openapi.ts";
import { signatureAccess, type SignedEnv } from "../middleware/signature_auth.ts";
import { scoredPredictionsRoute } from "./scored_predictions_api.ts";

export interface ScoredPredictionRoutesDeps extends ScoredPredictionsDeps {
  guard: SignatureGuard;
  cursors: CursorCodec;
  clock: Clock;
}

interface Cursor {
  r: number;
  a: string;
}

/**
 * `GET /v1/validators/scored-predictions` (validator signature; while the metagraph has never
 * synced the signature and nonce are checked and the list is empty), mounted at
 * `/v1/validators`.
 */
export function scoredPredictionRoutes(deps: ScoredPredictionRoutesDeps): OpenAPIHono<SignedEnv> {
  const signature = signatureAccess(deps.guard, { role: "validator", neverSynced: "skip_metagraph" });
  return openApiApp<SignedEnv>().openapi(scoredPredictionsRoute(signature), async (c) => {
    const query = c.req.valid("query");
    const fingerprint = CursorCodec.fingerprint({
      days: query.days,
      limit: query.limit,
      minerHotkey: query.minerHotkey ?? null,
      includeTraceSummary: query.includeTraceSummary,
    });
    const after = query.cursor === undefined
      ? undefined
      : positionOf(deps.cursors.decode<Cursor>(fingerprint, query.cursor));
    const page = await scoredPredictionsPage(deps, {
      days: query.days,
      limit: query.limit,
      includeTraceSummary: query.includeTraceSummary,
      nowMs: deps.clock(),
      ...(query.minerHotkey === undefined ? {} : { minerHotkey: query.minerHotkey }),
      ...(after ? { after } : {}),
    });
    const nextCursor = page.next
      ? deps.cursors.encode<Cursor>(fingerprint, {
        r: page.next.resolvedAtMs,
        a: page.next.agentPredictionId,
      })
      : null;
    return c.json({ items: page.items, nextCursor }, 200);
  });
}

function positionOf(cursor: Cursor): ScoredCursor {
  return { resolvedAtMs: cursor.r, agentPredictionId: cursor.a };
}
