import { HotkeyCeremony, publicOriginOf } from "../../../actors/ceremony/mod.ts";
import type { Clock } from "../../../actors/kernel/mod.ts";
import { scureSr25519Verify, type SignatureCheck } from "../../../actors/validators/mod.ts";
import type { SessionStore } from "../../../storage/session_store.ts";
import { type ExpectedChallenge, sessionChallengeStore } from "../wiring/session_challenges.ts";

/** The hotkey ceremony of one request, whose challenges are taken only when issued to `expected`. */
export type HotkeyCeremonyFor = (expected: ExpectedChallenge) => HotkeyCeremony;

export interface HotkeyCeremonyDeps {
  sessionStore: Pick<SessionStore, "issueChallenge" | "consumeChallenge">;
  clock: Clock;
  /** `FGW_PUBLIC_URL`, as an origin: the messages' second line. */
  publicOrigin: string;
  /** sr25519 verification; default on this thread (a sign-in or a link is rare). */
  verify?: SignatureCheck;
}

/** The dashboard's hotkey ceremonies, their challenges in the session store. */
export function hotkeyCeremonyFor(deps: HotkeyCeremonyDeps): HotkeyCeremonyFor {
  const origin = publicOriginOf(deps.publicOrigin);
  return (expected) =>
    new HotkeyCeremony({
      origin,
      clock: deps.clock,
      verify: deps.verify ?? scureSr25519Verify,
      challenges: sessionChallengeStore(deps.sessionStore, deps.clock, () => Promise.resolve(expected)),
    });
}
