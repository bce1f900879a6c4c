import type { Clock } from "../../actors/kernel/mod.ts";
import type { ActorSystem, PeriodicJob } from "../../actors/runtime/mod.ts";
import {
  type AskMembership,
  identityPurgeJob,
  membershipActorKind,
  membershipAsker,
  SessionDesk,
} from "../../actors/identity/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import type { Config } from "./config.ts";

/** The dashboard's identity core on one instance (docs/dashboard.md). */
export interface DashboardWiring {
  /** The origin the dashboard is served at (`FGW_PUBLIC_URL`); undefined: the dashboard is off. */
  publicOrigin: string | undefined;
  /** Asks an organisation's MembershipActor (members, invitations, passkeys). */
  askMembership: AskMembership;
  /** Sessions and sign-in challenges, shared through storage by every instance. */
  sessions: SessionDesk;
  /** Purges ended sessions, challenges and invitations. */
  purgeJob: PeriodicJob;
}

/** Registers the MembershipActor kind and builds the session desk and the purge job. */
export function createDashboard(
  config: Config,
  deps: { storage: Storage; actors: ActorSystem; clock: Clock },
): DashboardWiring {
  const { storage, actors, clock } = deps;
  const kind = actors.register(membershipActorKind({ members: storage.members, orgs: storage.orgs, clock }));
  return {
    publicOrigin: config.FGW_PUBLIC_URL,
    askMembership: membershipAsker(actors, kind),
    sessions: new SessionDesk({
      sessions: storage.sessions,
      members: storage.members,
      orgs: storage.orgs,
      clock,
    }),
    purgeJob: identityPurgeJob(storage),
  };
}
