import type { AuditEntry } from "../audit_store.ts";
import type { InvitationRecord, MemberChange, MemberRecord, PasskeyCredential } from "../member_store.ts";
import type { MinerRegistration } from "../org_store.ts";
import { LOST, type Lost } from "../retry_conditional.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { identityKeys as keys } from "./_identity_keys.ts";
import { orgKeys } from "./_org_keys.ts";
import { deleteCredential, deleteCredentialsVersion } from "./_kv_credentials.ts";
import {
  bumpRoster,
  deleteInvitation,
  deleteSession,
  deleteSessions,
  getAll,
  idsUnder,
  putAudit,
  readRoster,
  SESSIONS_PER_COMMIT,
  sessionsUnder,
} from "./_kv_identity_writes.ts";

/** How many owners the org has (read after its roster entry, whose check makes the count hold). */
export async function ownerCount(kv: Deno.Kv, orgId: string): Promise<number> {
  const ids = await idsUnder(kv, keys.orgMembers(orgId));
  const members = await getAll<MemberRecord>(kv, ids.map((id) => keys.member(id)));
  return members.filter((entry) => entry.value?.role === "owner").length;
}

/** What goes with a member: its passkeys, sessions, re-enrolment invitations and hotkey bindings. */
interface Belongings {
  credentials: PasskeyCredential[];
  invitations: InvitationRecord[];
  bound: Deno.KvEntry<MinerRegistration>[];
}

async function belongingsOf(kv: Deno.Kv, member: MemberRecord): Promise<Belongings> {
  const credentialIds = await idsUnder(kv, keys.memberCredentials(member.id));
  const credentials = await getAll<PasskeyCredential>(kv, credentialIds.map((id) => keys.credential(id)));
  const invitationIds = await idsUnder(kv, keys.orgInvitations(member.orgId));
  const invitations = await getAll<InvitationRecord>(kv, invitationIds.map((id) => keys.invitation(id)));
  const hotkeys = await idsUnder(kv, orgKeys.orgMiners(member.orgId));
  const miners = await getAll<MinerRegistration>(kv, hotkeys.map((hotkey) => orgKeys.miner(hotkey)));
  return {
    credentials: credentials.flatMap((entry) => entry.value ? [entry.value] : []),
    invitations: invitations.flatMap((entry) => entry.value?.memberId === member.id ? [entry.value] : []),
    bound: miners.filter((entry): entry is Deno.KvEntry<MinerRegistration> =>
      entry.value?.boundMemberId === member.id
    ),
  };
}

/**
 * One attempt at removing a member (see `MemberStore.removeMember`). The member's sessions go in
 * the same commit, up to `SESSIONS_PER_COMMIT`; any more right after it (a session whose member is
 * gone is refused anyway: `SessionStore.find` reads the member with it).
 */
export async function removeMemberOnce(
  kv: Deno.Kv,
  request: { orgId: string; memberId: string; audit: AuditEntry },
): Promise<MemberChange | Lost> {
  const { orgId, memberId } = request;
  const roster = await readRoster(kv, orgId);
  const entry = await kv.get<MemberRecord>(keys.member(memberId));
  const member = entry.value;
  if (member?.orgId !== orgId) return "not_found";
  if (member.role === "owner" && await ownerCount(kv, orgId) <= 1) return "last_owner";
  const belongings = await belongingsOf(kv, member);
  const sessions = await sessionsUnder(kv, keys.memberSessions(memberId));
  const result = await commitAtomic(() => {
    const op = kv.atomic().check(entry);
    bumpRoster(op, orgId, roster);
    op.delete(keys.member(memberId)).delete(keys.orgMember(orgId, memberId));
    for (const credential of belongings.credentials) deleteCredential(op, credential);
    deleteCredentialsVersion(op, memberId);
    for (const invitation of belongings.invitations) deleteInvitation(op, invitation);
    for (const miner of belongings.bound) {
      const unbound = { ...miner.value, boundMemberId: null };
      op.check(miner).set(orgKeys.miner(unbound.hotkey), unbound).set(
        orgKeys.orgMiner(orgId, unbound.hotkey),
        unbound,
      );
    }
    for (const session of sessions.slice(0, SESSIONS_PER_COMMIT)) deleteSession(op, session);
    putAudit(op, request.audit);
    return op;
  });
  if (!result.ok) return LOST;
  await deleteSessions(kv, sessions.slice(SESSIONS_PER_COMMIT));
  return "changed";
}
