/**
 * A scored world for the customer prediction endpoints, built on the scoring job's fixtures:
 * uid 0 and uid 1 have scores 0.09 and 0.036667 (tests/scoring/leaderboard_test.ts works them out),
 * uid 2 is registered without predictions, uid 3 is not a forecasting miner (no organisation).
 */
import { ManualClock } from "../../actors/kernel/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import type { EventRecord } from "../../storage/event_record.ts";
import { eventRecord } from "../support/events.ts";
import { runJobOnce } from "../support/jobs.ts";
import { minerHotkey } from "../support/assignments.ts";
import { ADMIN_TOKEN, createOrg, issueKey } from "../support/access.ts";
import { openTestService, type TestService } from "../support/test_service.ts";
import {
  BASE,
  DAY,
  HOUR,
  registerMiners,
  storeFiveResolvedEvents,
  storePredictions,
  syncMetagraph,
} from "../scoring/job_fixtures.ts";

export { BASE, DAY, HOUR };
export const NOW = BASE + 3 * DAY + 60_000;
export const SCORE_0 = 0.09;
export const SCORE_1 = 0.036667;
/** The open event: ends 200 h after BASE. */
export const OPEN_ID = "polymarket-7";
/** A resolved event ("yes" won): uid 0 said 0.7, uid 1 0.5. */
export const RESOLVED_ID = "polymarket-1";

export interface PredictionWorld {
  service: TestService;
  open: EventRecord;
  /** A key of a customer org for each scope (rate limit 60/min). */
  keys: Record<"read" | "write" | "history" | "billing", string>;
  orgId: string;
}

/**
 * Five resolved events scored as in the leaderboard test, and `OPEN_ID` open: uid 0 said 0.2, then
 * (round 1, later) 0.8; uid 1 said 0.3, then (round 1, later) an invalid prediction; uid 3 said 0.99.
 */
export async function predictionWorld(
  storage: Storage,
  options: { env?: Record<string, string> } = {},
): Promise<PredictionWorld> {
  await storeFiveResolvedEvents(storage);
  const open = eventRecord(OPEN_ID, BASE, { endsInHours: 200 });
  await storePredictions(storage, [open], [
    { event: open, uid: 0, pYes: 0.2, receivedAtMs: BASE + HOUR },
    { event: open, uid: 0, pYes: 0.8, receivedAtMs: BASE + 2 * HOUR, round: 1 },
    { event: open, uid: 1, pYes: 0.3, receivedAtMs: BASE + HOUR },
    { event: open, uid: 1, pYes: 0.9, receivedAtMs: BASE + 3 * HOUR, round: 1, invalid: true },
    { event: open, uid: 3, pYes: 0.99, receivedAtMs: BASE + HOUR },
  ]);
  await syncMetagraph(storage, [0, 1, 2, 3], { syncedAtMs: BASE - 10 * DAY });
  await syncMetagraph(storage, [0, 1, 2, 3], { syncedAtMs: NOW });
  await registerMiners(storage, "org-a", [minerHotkey(0), minerHotkey(2)]);
  await registerMiners(storage, "org-b", [minerHotkey(1)]);
  const service = await openTestService({
    storage,
    clock: new ManualClock(NOW),
    env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN, ...options.env },
  });
  await runJobOnce(service.scoring.job, { leases: storage.jobLeases, nowMs: NOW });
  await service.metagraph.view.refresh();
  await service.catalog.view.refresh();
  const orgId = await createOrg(service.request, "Customer");
  const key = async (scope: string) => (await issueKey(service.request, orgId, { scopes: [scope] })).apiKey;
  const keys = {
    read: await key("predictions:read"),
    write: await key("predictions:write"),
    history: await key("history:read"),
    billing: await key("billing:read"),
  };
  return { service, open, keys, orgId };
}

/** `init` with the key and a JSON body. */
export function postJson(apiKey: string, body: unknown): RequestInit {
  return {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  };
}
