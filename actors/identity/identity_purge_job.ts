import type { PeriodicJob } from "../runtime/mod.ts";
import type { MemberStore } from "../../storage/member_store.ts";
import type { SessionStore } from "../../storage/session_store.ts";

/**
 * Deletes ended dashboard sessions, expired sign-in challenges and expired invitations, once a
 * minute by default, on one instance at a time (the scheduler's lease). Idempotent: a re-run
 * deletes nothing new. Nothing waits for it: an ended session, challenge or invitation is refused
 * when presented whether or not it was purged yet.
 */
export function identityPurgeJob(
  stores: {
    sessions: Pick<SessionStore, "purgeExpired">;
    members: Pick<MemberStore, "purgeExpiredInvitations">;
  },
  intervalMs = 60_000,
): PeriodicJob {
  return {
    name: "identity_purge",
    intervalMs: () => intervalMs,
    run: async (nowMs) => {
      await stores.sessions.purgeExpired(nowMs);
      await stores.members.purgeExpiredInvitations(nowMs);
    },
  };
}
