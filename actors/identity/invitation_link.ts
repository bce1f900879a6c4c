import type { InvitationRecord, MemberStore } from "../../storage/member_store.ts";
import { parseSecretToken, secretMatches, type SecretToken } from "./secret_token.ts";

/** The path of an invitation's sign-in link under the dashboard's origin. */
export const INVITATION_PATH = "/dashboard/invitations/";

/** The sign-in link of an invitation: `<FGW_PUBLIC_URL>/dashboard/invitations/<token>`. */
export function invitationLink(publicOrigin: string, token: string): string {
  return `${publicOrigin}${INVITATION_PATH}${token}`;
}

/**
 * The invitation a link's token opens: stored, not expired at `nowMs`, and its secret matching
 * (compared in constant time). Null otherwise, whichever the reason (a forged, used, revoked or
 * expired link all read the same).
 */
export async function openInvitation(
  members: Pick<MemberStore, "invitation">,
  token: SecretToken | string,
  nowMs: number,
): Promise<InvitationRecord | null> {
  const parsed = typeof token === "string" ? parseSecretToken(token) : token;
  if (!parsed) return null;
  const invitation = await members.invitation(parsed.id);
  if (!invitation || invitation.expiresAtMs <= nowMs) return null;
  return secretMatches(parsed.secret, invitation.secretHash) ? invitation : null;
}

/**
 * The id of the member a `join` invitation makes (a `reenrol` one's member keeps its id): known
 * before the invitation is used, so the passkey registered for it carries it as its user handle.
 */
export function joiningMemberId(invitation: Pick<InvitationRecord, "id" | "memberId">): string {
  return invitation.memberId ?? `mbr_${invitation.id}`;
}
