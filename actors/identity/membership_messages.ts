import type { ActorKind, ActorSystem, Ask, TaggedMessages } from "../runtime/mod.ts";
import type { AuditActor } from "../../storage/audit_store.ts";
import type {
  InvitationRecord,
  MemberRecord,
  MemberRole,
  NewCredential,
  PasskeyCredential,
} from "../../storage/member_store.ts";

/** An invitation as it may be shown: everything but the hash of its secret. */
export type InvitationSummary = Omit<InvitationRecord, "secretHash">;

/**
 * The messages a MembershipActor (one per organisation) understands. `by` is who asks: the
 * operator, or a member (an owner for every change of others; any member for its own passkeys).
 */
export type MembershipMessage =
  /** A single-use link making a new member with `role`. */
  | { type: "invite"; role: MemberRole; by: AuditActor }
  /** A single-use link giving `memberId`, who lost every passkey, a new one (its role unchanged). */
  | { type: "reenrol"; memberId: string; by: AuditActor }
  | { type: "revokeInvitation"; invitationId: string; by: AuditActor }
  /**
   * The passkey step of an invitation: uses it up, makes (or takes) its member and stores the
   * credential, in one atomic write. `secret` is the link's; `displayName` names a new member.
   */
  | { type: "accept"; invitationId: string; secret: string; displayName: string; credential: NewCredential }
  | { type: "changeRole"; memberId: string; role: MemberRole; by: AuditActor }
  /** Removes a member, its passkeys, sessions and hotkey bindings; never the last owner. */
  | { type: "removeMember"; memberId: string; by: AuditActor }
  /** Another passkey of a member, registered while signed in as that member. */
  | { type: "addPasskey"; memberId: string; credential: NewCredential }
  /** A member removes one of its own passkeys. */
  | { type: "removePasskey"; memberId: string; credentialId: string };

/** The reply to `invite` and `reenrol`: the invitation and, this once, its link's token. */
export interface InvitationReply {
  invitation: InvitationSummary;
  /** `<id>.<secret>`: the last part of the sign-in link. Never stored, never logged. */
  token: string;
}

/** The reply type of each message type. */
export interface MembershipReplies {
  invite: InvitationReply;
  reenrol: InvitationReply;
  revokeInvitation: { invitation: InvitationSummary };
  accept: { member: MemberRecord };
  changeRole: { member: MemberRecord };
  removeMember: { member: MemberRecord };
  addPasskey: { credential: PasskeyCredential };
  removePasskey: { credentialId: string };
}

/** Each MembershipActor message with its reply. */
export type MembershipMessages = TaggedMessages<MembershipMessage, MembershipReplies>;

/** Sends a message to the MembershipActor of an organisation; the reply is typed after the message. */
export type AskMembership = Ask<MembershipMessages>;

/** The `AskMembership` of one actor system and its registered MembershipActor kind. */
export function membershipAsker(actors: ActorSystem, kind: ActorKind<MembershipMessages>): AskMembership {
  return (orgId, message, options) => actors.ask(kind, orgId, message, options);
}

/** The invitation without its secret's hash. */
export function summarizeInvitation(invitation: InvitationRecord): InvitationSummary {
  const { secretHash: _secretHash, ...summary } = invitation;
  return summary;
}
