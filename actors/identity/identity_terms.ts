import { DAY_MS, HOUR_MS } from "../kernel/mod.ts";

/** How long an invitation link stays valid. */
export const INVITATION_TTL_MS = 24 * HOUR_MS;
/** A session ends after this long without a request. */
export const SESSION_IDLE_MS = 12 * HOUR_MS;
/** A session ends this long after sign-in, however busy. */
export const SESSION_ABSOLUTE_MS = 7 * DAY_MS;
/** A session's last-seen time is written at most this often. */
export const SESSION_TOUCH_MS = 60_000;
/** How long a sign-in challenge may be answered. */
export const CHALLENGE_TTL_MS = 5 * 60_000;

/** When a session seen at `lastSeenAtMs` ends: the earlier of its idle and absolute ends. */
export function sessionEndsAt(session: { createdAtMs: number; lastSeenAtMs: number }): number {
  return Math.min(session.lastSeenAtMs + SESSION_IDLE_MS, session.createdAtMs + SESSION_ABSOLUTE_MS);
}
