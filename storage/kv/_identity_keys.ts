/**
 * Deno KV keys of members, invitations, passkeys, sessions, challenges and the audit log (shared by
 * the member, session, audit and org stores, which write some of them in one commit).
 */
export const identityKeys = {
  member: (memberId: string): Deno.KvKey => ["member", memberId],
  orgMember: (orgId: string, memberId: string): Deno.KvKey => ["org_member", orgId, memberId],
  orgMembers: (orgId: string): Deno.KvKey => ["org_member", orgId],
  /**
   * The org's roster version: checked and bumped by every write that changes who is a member, what
   * role one has or which member a hotkey signs in as, so such writes of one org are serialised.
   */
  roster: (orgId: string): Deno.KvKey => ["member_roster", orgId],
  invitation: (invitationId: string): Deno.KvKey => ["invitation", invitationId],
  orgInvitation: (orgId: string, invitationId: string): Deno.KvKey => ["org_invitation", orgId, invitationId],
  orgInvitations: (orgId: string): Deno.KvKey => ["org_invitation", orgId],
  invitationExpiry: (expiresAtMs: number, invitationId: string): Deno.KvKey => [
    "invitation_expiry",
    expiresAtMs,
    invitationId,
  ],
  invitationExpiries: (): Deno.KvKey => ["invitation_expiry"],
  credential: (credentialId: string): Deno.KvKey => ["passkey", credentialId],
  memberCredential: (memberId: string, credentialId: string): Deno.KvKey => [
    "member_passkey",
    memberId,
    credentialId,
  ],
  memberCredentials: (memberId: string): Deno.KvKey => ["member_passkey", memberId],
  /**
   * The member's passkey version: checked and bumped by every removal of one of its passkeys, so
   * two removals never both commit on a count the other changed (a member keeps one passkey).
   */
  memberCredentialsVersion: (memberId: string): Deno.KvKey => ["member_passkey_version", memberId],
  session: (sessionId: string): Deno.KvKey => ["session", sessionId],
  memberSession: (memberId: string, sessionId: string): Deno.KvKey => ["member_session", memberId, sessionId],
  memberSessions: (memberId: string): Deno.KvKey => ["member_session", memberId],
  hotkeySession: (hotkey: string, sessionId: string): Deno.KvKey => ["hotkey_session", hotkey, sessionId],
  hotkeySessions: (hotkey: string): Deno.KvKey => ["hotkey_session", hotkey],
  sessionExpiry: (expiresAtMs: number, sessionId: string): Deno.KvKey => [
    "session_expiry",
    expiresAtMs,
    sessionId,
  ],
  sessionExpiries: (): Deno.KvKey => ["session_expiry"],
  challenge: (challengeHash: string): Deno.KvKey => ["challenge", challengeHash],
  challengeExpiry: (expiresAtMs: number, challengeHash: string): Deno.KvKey => [
    "challenge_expiry",
    expiresAtMs,
    challengeHash,
  ],
  challengeExpiries: (): Deno.KvKey => ["challenge_expiry"],
  audit: (orgId: string, atMs: number, id: string): Deno.KvKey => ["audit", orgId, atMs, id],
  audits: (orgId: string): Deno.KvKey => ["audit", orgId],
};
