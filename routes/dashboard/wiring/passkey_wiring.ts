import type { Context } from "hono";
import {
  PasskeyCeremony,
  type PasskeyCredential,
  type PasskeySignIn,
  publicOriginOf,
  type StoredPasskey,
} from "../../../actors/ceremony/mod.ts";
import { type AskMembership, joiningMemberId, openInvitation } from "../../../actors/identity/mod.ts";
import { type Clock, ServiceError } from "../../../actors/kernel/mod.ts";
import type { InvitationRecord, MemberStore, NewCredential } from "../../../storage/member_store.ts";
import type { SessionStore } from "../../../storage/session_store.ts";
import { PASSKEY_PATHS, type PasskeyRouteDeps, type Registrant } from "../ceremony/passkey_routes.ts";
import type { DashboardEnv } from "../dashboard_visit.ts";
import { defaultDisplayName } from "../display_name.ts";
import { sessionChallengeStore } from "./session_challenges.ts";

/** Where a browser goes once signed in. */
export const HOME_PATH = "/dashboard";

/** The signed-in member's passkeys page (where adding one leads). */
export const PASSKEYS_PATH = "/dashboard/passkeys";

/** The query parameter carrying an invitation's token to the registration endpoints. */
export const INVITATION_PARAM = "invitation";

export interface PasskeyWiringDeps {
  members: Pick<MemberStore, "invitation" | "credential" | "recordCredentialUse" | "listCredentials">;
  sessionStore: Pick<SessionStore, "issueChallenge" | "consumeChallenge">;
  askMembership: AskMembership;
  clock: Clock;
  /** `FGW_PUBLIC_URL`, as an origin. */
  publicOrigin: string;
}

/** The dashboard request of a sub-app's context (the dashboard's middleware ran before it). */
function dashboardContext(c: Context): Context<DashboardEnv> {
  return c as unknown as Context<DashboardEnv>;
}

/**
 * The passkey endpoints wired to the identity core: challenges in the session store, the
 * registrant an invitation (its token in the `invitation` query parameter), a registration
 * accepted by the organisation's MembershipActor (invitation used up, member made, passkey stored,
 * in one write) and a sign-in recorded on the passkey, each ending in a new session.
 */
export function passkeyWiring(deps: PasskeyWiringDeps): PasskeyRouteDeps {
  const origin = publicOriginOf(deps.publicOrigin);
  const registrantOf = async (c: Context): Promise<Registrant | null> => {
    if (c.req.query(INVITATION_PARAM) === undefined) return await signedInRegistrant(c, deps);
    const invitation = await invitationOf(c, deps);
    return invitation === null ? null : registrantOfInvitation(invitation);
  };
  return {
    ceremony: (c) =>
      new PasskeyCeremony({
        origin,
        rpName: "Forecasting Gateway",
        clock: deps.clock,
        challenges: sessionChallengeStore(deps.sessionStore, deps.clock, async () => {
          const signingIn = c.req.path.endsWith(PASSKEY_PATHS.signIn) ||
            c.req.path.endsWith(PASSKEY_PATHS.signInOptions);
          return {
            browser: dashboardContext(c).get("visit").browserId(),
            purpose: signingIn ? "passkey_sign_in" : "passkey_registration",
            subject: signingIn ? "" : (await registrantOf(c))?.user.handle ?? "",
          };
        }),
      }),
    browserOf: (c) => dashboardContext(c).get("visit").browserId(),
    registrantOf,
    saveCredential: (c, registrant, credential) =>
      c.req.query(INVITATION_PARAM) === undefined
        ? addPasskey(c, deps, credential)
        : acceptInvitation(c, deps, registrant, credential),
    findPasskey: (credentialId) => storedPasskeyOf(deps, credentialId),
    signIn: (c, signIn) => signInWithPasskey(c, deps, signIn),
  };
}

/** The invitation named by the request's `invitation` parameter, while it can be used. */
function invitationOf(c: Context, deps: PasskeyWiringDeps): Promise<InvitationRecord | null> {
  const token = c.req.query(INVITATION_PARAM);
  return token === undefined ? Promise.resolve(null) : openInvitation(deps.members, token, deps.clock());
}

/** Whom an invitation registers a passkey for: the member it makes (or re-enrols). */
export function registrantOfInvitation(invitation: InvitationRecord): Registrant {
  const handle = joiningMemberId(invitation);
  const displayName = newMemberName(invitation);
  return { user: { handle, name: displayName, displayName } };
}

/** The name a member joining through `invitation` starts with, unless it types one (the member's role). */
function newMemberName(invitation: InvitationRecord): string {
  return defaultDisplayName(invitation.role);
}

/**
 * Without an invitation, the signed-in member registers another passkey of its own (its passkeys
 * excluded, so an authenticator does not make a second one for the same member); signed out: nobody.
 */
async function signedInRegistrant(c: Context, deps: PasskeyWiringDeps): Promise<Registrant | null> {
  const signedIn = dashboardContext(c).get("visit").signedIn;
  if (signedIn === null) return null;
  const { member } = signedIn;
  const passkeys = await deps.members.listCredentials(member.id);
  return {
    user: { handle: member.id, name: member.displayName, displayName: member.displayName },
    excludeCredentialIds: passkeys.map((passkey) => passkey.credentialId),
  };
}

/** Another passkey of the signed-in member (the MembershipActor's `addPasskey`, with its audit entry). */
async function addPasskey(
  c: Context,
  deps: PasskeyWiringDeps,
  credential: PasskeyCredential,
): Promise<string> {
  const signedIn = dashboardContext(c).get("visit").signedIn;
  if (signedIn === null) throw new ServiceError("unauthenticated", "Sign in to the dashboard first");
  await deps.askMembership(signedIn.member.orgId, {
    type: "addPasskey",
    memberId: signedIn.member.id,
    credential: newCredential(deps, credential),
  });
  return PASSKEYS_PATH;
}

async function acceptInvitation(
  c: Context,
  deps: PasskeyWiringDeps,
  registrant: Registrant,
  credential: PasskeyCredential,
): Promise<string> {
  const invitation = await invitationOf(c, deps);
  const token = c.req.query(INVITATION_PARAM) ?? "";
  if (invitation === null || joiningMemberId(invitation) !== registrant.user.handle) {
    throw new ServiceError("not_found", "Invitation not found: it was used, revoked, or it expired");
  }
  const { member } = await deps.askMembership(invitation.orgId, {
    type: "accept",
    invitationId: invitation.id,
    secret: token.slice(token.indexOf(".") + 1),
    displayName: invitation.kind === "join" ? registrant.user.displayName : newMemberName(invitation),
    credential: newCredential(deps, credential),
  });
  await dashboardContext(c).get("visit").startSession(member.id, { kind: "passkey" });
  return HOME_PATH;
}

/** The credential a ceremony just registered, as the member's store keeps it (made now). */
function newCredential(deps: PasskeyWiringDeps, credential: PasskeyCredential): NewCredential {
  return {
    credentialId: credential.id,
    publicKey: credential.publicKey,
    signCount: credential.counter,
    transports: credential.transports,
    createdAtMs: deps.clock(),
  };
}

async function storedPasskeyOf(deps: PasskeyWiringDeps, credentialId: string): Promise<StoredPasskey | null> {
  const stored = await deps.members.credential(credentialId);
  if (stored === null) return null;
  return {
    userHandle: stored.memberId,
    credential: {
      id: stored.credentialId,
      publicKey: stored.publicKey,
      counter: stored.signCount,
      transports: stored.transports,
    },
  };
}

async function signInWithPasskey(
  c: Context,
  deps: PasskeyWiringDeps,
  signIn: PasskeySignIn,
): Promise<string> {
  const stored = await deps.members.credential(signIn.credentialId);
  const recorded = stored !== null && await deps.members.recordCredentialUse(signIn.credentialId, {
    expectedSignCount: stored.signCount,
    signCount: signIn.newCounter,
    atMs: deps.clock(),
  });
  // The passkey was removed, or another sign-in with it moved its counter meanwhile.
  if (!recorded) throw new ServiceError("unauthenticated", "Passkey sign-in refused: try again");
  await dashboardContext(c).get("visit").startSession(stored.memberId, { kind: "passkey" });
  return HOME_PATH;
}
