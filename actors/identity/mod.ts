/**
 * The dashboard's identities: the MembershipActor per organisation (members, roles, invitations,
 * passkeys, the last owner kept), the SessionDesk (sessions and sign-in challenges shared by every
 * instance), the tokens of invitation links and session cookies, and the purge job. docs/dashboard.md.
 *
 * @module
 */
export * from "./acting_member.ts";
export * from "./identity_purge_job.ts";
export * from "./identity_terms.ts";
export * from "./invitation_link.ts";
export * from "./membership_actor.ts";
export * from "./membership_messages.ts";
export * from "./secret_token.ts";
export * from "./session_desk.ts";
