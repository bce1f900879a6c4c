import { type Clock, ServiceError } from "../kernel/mod.ts";
import type { Actor, ActorKind } from "../runtime/mod.ts";
import {
  type AuditAction,
  type AuditActor,
  type AuditEntry,
  type AuditValue,
  newAuditId,
} from "../../storage/audit_store.ts";
import type { InvitationRecord, MemberStore } from "../../storage/member_store.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import { assertOwner, memberOfOrg } from "./acting_member.ts";
import { INVITATION_TTL_MS } from "./identity_terms.ts";
import { joiningMemberId, openInvitation } from "./invitation_link.ts";
import {
  type InvitationReply,
  type MembershipMessage,
  type MembershipMessages,
  type MembershipReplies,
  summarizeInvitation,
} from "./membership_messages.ts";
import { formatSecretToken, hashText, newSecretToken } from "./secret_token.ts";
import { passkeyChange } from "./_membership_passkeys.ts";

export interface MembershipActorDeps {
  members: MemberStore;
  orgs: Pick<OrgStore, "get">;
  clock: Clock;
}

type Reply = MembershipReplies[keyof MembershipReplies];

/**
 * The owner of one organisation's members, invitations and passkeys (docs/dashboard.md). It checks
 * who asks, then makes one conditional write through `MemberStore` carrying its audit entry; the
 * store keeps the organisation's last owner between instances.
 */
export class MembershipActor implements Actor<MembershipMessages> {
  readonly #orgId: string;
  readonly #deps: MembershipActorDeps;

  constructor(orgId: string, deps: MembershipActorDeps) {
    this.#orgId = orgId;
    this.#deps = deps;
  }

  async receive(message: MembershipMessage): Promise<Reply> {
    switch (message.type) {
      case "invite":
      case "reenrol":
        return await this.#invite(message);
      case "revokeInvitation":
        return await this.#revoke(message.invitationId, message.by);
      case "accept":
        return await this.#accept(message);
      case "changeRole":
        return await this.#changeRole(message);
      case "removeMember":
        return await this.#remove(message.memberId, message.by);
      case "addPasskey":
      case "removePasskey":
        return await passkeyChange(this.#deps, this.#orgId, message, (action, at) => this.#audit(action, at));
    }
  }

  async #invite(
    message: Extract<MembershipMessage, { type: "invite" | "reenrol" }>,
  ): Promise<InvitationReply> {
    const { members, orgs, clock } = this.#deps;
    if (!(await orgs.get(this.#orgId))) throw new ServiceError("not_found", "Organisation not found");
    await assertOwner(members, this.#orgId, message.by);
    // A re-enrolment keeps its member's role; a join gives the role asked.
    const member = message.type === "reenrol"
      ? await memberOfOrg(members, this.#orgId, message.memberId)
      : null;
    const token = newSecretToken();
    const nowMs = clock();
    const invitation: InvitationRecord = {
      id: token.id,
      orgId: this.#orgId,
      role: message.type === "invite" ? message.role : member!.role,
      kind: message.type === "invite" ? "join" : "reenrol",
      memberId: member?.id ?? null,
      secretHash: hashText(token.secret),
      createdAtMs: nowMs,
      expiresAtMs: nowMs + INVITATION_TTL_MS,
    };
    const audit = this.#audit("invitation.created", {
      by: message.by,
      subject: invitation.id,
      details: { kind: invitation.kind, role: invitation.role, memberId: invitation.memberId },
    });
    if (!(await members.createInvitation(invitation, audit))) {
      throw new ServiceError("not_found", "Member not found");
    }
    return { invitation: summarizeInvitation(invitation), token: formatSecretToken(token) };
  }

  async #revoke(invitationId: string, by: AuditActor) {
    const { members } = this.#deps;
    await assertOwner(members, this.#orgId, by);
    const invitation = await members.invitation(invitationId);
    const audit = this.#audit("invitation.revoked", { by, subject: invitationId, details: {} });
    if (
      invitation?.orgId !== this.#orgId || !(await members.revokeInvitation(this.#orgId, invitationId, audit))
    ) {
      throw new ServiceError("not_found", "Invitation not found");
    }
    return { invitation: summarizeInvitation(invitation) };
  }

  async #accept(message: Extract<MembershipMessage, { type: "accept" }>) {
    const { members, clock } = this.#deps;
    const nowMs = clock();
    const invitation = await openInvitation(
      members,
      { id: message.invitationId, secret: message.secret },
      nowMs,
    );
    if (invitation?.orgId !== this.#orgId) throw invitationGone();
    const outcome = await members.acceptInvitation({
      invitationId: invitation.id,
      nowMs,
      newMember: { id: joiningMemberId(invitation), displayName: message.displayName },
      credential: message.credential,
      audit: (member, used) =>
        this.#audit(used.kind === "join" ? "member.joined" : "member.reenrolled", {
          by: { kind: "member", memberId: member.id },
          subject: member.id,
          details: {
            invitationId: used.id,
            role: member.role,
            credentialId: message.credential.credentialId,
          },
        }),
    });
    if (outcome.status === "gone") throw invitationGone();
    if (outcome.status === "credential_taken") {
      throw new ServiceError("conflict", "This passkey is registered already");
    }
    return { member: outcome.member };
  }

  async #changeRole(message: Extract<MembershipMessage, { type: "changeRole" }>) {
    const { members } = this.#deps;
    await assertOwner(members, this.#orgId, message.by);
    const member = await memberOfOrg(members, this.#orgId, message.memberId);
    const audit = this.#audit("member.role_changed", {
      by: message.by,
      subject: member.id,
      details: { from: member.role, to: message.role },
    });
    const change = await members.changeRole(this.#orgId, member.id, { role: message.role, audit });
    refuseChange(change);
    return { member: { ...member, role: message.role } };
  }

  async #remove(memberId: string, by: AuditActor) {
    const { members } = this.#deps;
    await assertOwner(members, this.#orgId, by);
    const member = await memberOfOrg(members, this.#orgId, memberId);
    const audit = this.#audit("member.removed", {
      by,
      subject: member.id,
      details: { role: member.role, displayName: member.displayName },
    });
    refuseChange(await members.removeMember(this.#orgId, member.id, audit));
    return { member };
  }

  #audit(
    action: AuditAction,
    at: { by: AuditActor; subject: string; details: Record<string, AuditValue> },
  ): AuditEntry {
    return { id: newAuditId(), orgId: this.#orgId, atMs: this.#deps.clock(), action, ...at };
  }
}

function invitationGone(): ServiceError {
  return new ServiceError("not_found", "Invitation not found: it was used, revoked, or it expired");
}

/** Throws the refusal of a member change: 404 for a member gone meanwhile, 409 for the last owner. */
function refuseChange(change: "changed" | "unchanged" | "not_found" | "last_owner"): void {
  if (change === "not_found") throw new ServiceError("not_found", "Member not found");
  if (change === "last_owner") {
    throw new ServiceError(
      "conflict",
      "Cannot leave the organisation without an owner: make another owner first",
      {
        details: { rule: "last_owner" },
      },
    );
  }
}

/** The MembershipActor kind ("membership", addressed by organisation id). */
export function membershipActorKind(deps: MembershipActorDeps): ActorKind<MembershipMessages> {
  return { name: "membership", activate: (orgId) => Promise.resolve(new MembershipActor(orgId, deps)) };
}
