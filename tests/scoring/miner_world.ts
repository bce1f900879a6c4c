/**
 * A known data set for the miner route and page: miner uid 0 (registered, on the board) scored on
 * six events over three weeks, one of them invalid; uid 1 scored on one; two agent versions of
 * uid 0, one of uid 5 (no uid, nothing scored). "Yes" wins every event; the lease's prices are the
 * event's (0.4 for "yes"), so the market's Brier is 0.36 on every valid row.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { weekStartOf } from "../../actors/scoring/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { minerHotkey } from "../support/assignments.ts";
import { runJobOnce } from "../support/jobs.ts";
import { openTestService, type TestService } from "../support/test_service.ts";
import {
  BASE,
  DAY,
  HOUR,
  openEvent,
  registerMiners,
  resolve,
  storePredictions,
  syncMetagraph,
} from "./job_fixtures.ts";

/** Monday 00:00 UTC of the week after BASE's: the first week with a resolution. */
export const WEEK_1 = weekStartOf(BASE) + 7 * DAY;
export const WEEK_2 = WEEK_1 + 7 * DAY;
export const WEEK_3 = WEEK_2 + 7 * DAY;
export const NOW = WEEK_3 + 7 * DAY;
export const MINER = minerHotkey(0);
/** A hotkey with an agent version and nothing else. */
export const UPLOADER = minerHotkey(5);
export const CODE = "def agent_main(event):\n    return {'secret': 'agent code'}\n";

export const EVENTS = [1, 2, 3, 4, 5, 6].map((n) => openEvent(`polymarket-${n}`));
/** When each event resolved, and what uid 0 said of "yes" on it. */
export const PLAN = [
  { resolvedAtMs: WEEK_1 + 12 * HOUR, pYes: 0.7 },
  { resolvedAtMs: WEEK_1 + 36 * HOUR, pYes: 0.9 },
  { resolvedAtMs: WEEK_2 + 12 * HOUR, pYes: 0.2 },
  { resolvedAtMs: WEEK_2 + 13 * HOUR, pYes: 0.6 },
  { resolvedAtMs: WEEK_3 + 12 * HOUR, pYes: 0.55, outcome: "yes" as const },
  { resolvedAtMs: WEEK_3 + 13 * HOUR, pYes: 0.5, invalid: true },
];

async function upload(storage: Storage, hotkey: string, code: string, name: string, nowMs: number) {
  const outcome = await storage.agents.upload(hotkey, {
    versionId: `agv_${name}`,
    sha256: Array.from(
      new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(code))),
      (byte) => byte.toString(16).padStart(2, "0"),
    ).join(""),
    sizeBytes: new TextEncoder().encode(code).length,
    name,
    code,
  }, { nowMs, cooldownMs: 0 });
  assert.equal(outcome.outcome, "created");
}

/** The service over the known data set, scored at NOW. */
export async function minerWorld(): Promise<TestService> {
  const storage = await openKvStorage(":memory:");
  await storePredictions(storage, EVENTS, [
    ...EVENTS.map((event, index) => ({ event, uid: 0, ...PLAN[index]! })),
    { event: EVENTS[0]!, uid: 1, pYes: 0.5, outcome: "yes" as const },
  ]);
  for (const [index, event] of EVENTS.entries()) {
    await resolve(storage, event, PLAN[index]!.resolvedAtMs, PLAN[index]!.resolvedAtMs);
  }
  await syncMetagraph(storage, [0, 1], { syncedAtMs: NOW });
  await registerMiners(storage, "org-a", [MINER, minerHotkey(1)]);
  await upload(storage, MINER, CODE, "first", BASE);
  await upload(storage, MINER, `${CODE}# two\n`, "second", BASE + HOUR);
  await upload(storage, UPLOADER, CODE, "only", BASE);
  const service = await openTestService({ storage, clock: new ManualClock(NOW) });
  await runJobOnce(service.scoring.job, { leases: storage.jobLeases, nowMs: NOW });
  await service.metagraph.view.refresh();
  return service;
}
