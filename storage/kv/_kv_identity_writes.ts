import type { AuditEntry } from "../audit_store.ts";
import type { InvitationRecord } from "../member_store.ts";
import type { SessionRecord } from "../session_store.ts";
import { identityKeys as keys } from "./_identity_keys.ts";
import { commitAtomic } from "./_atomic_retry.ts";

/** The roster version of one organisation (`identityKeys.roster`). */
export interface Roster {
  version: number;
}

/** Sessions deleted by one commit at most; the rest are deleted right after (see `endSessions`). */
export const SESSIONS_PER_COMMIT = 200;

/** The org's roster entry, to check and bump in a commit that changes its members or bindings. */
export function readRoster(kv: Deno.Kv, orgId: string): Promise<Deno.KvEntryMaybe<Roster>> {
  return kv.get<Roster>(keys.roster(orgId));
}

/** Checks the roster read before and bumps it, so another roster change of the org loses its commit. */
export function bumpRoster(op: Deno.AtomicOperation, orgId: string, roster: Deno.KvEntryMaybe<Roster>): void {
  op.check(roster).set(keys.roster(orgId), { version: (roster.value?.version ?? 0) + 1 });
}

/** Adds the audit entry to the commit. */
export function putAudit(op: Deno.AtomicOperation, entry: AuditEntry): void {
  op.set(keys.audit(entry.orgId, entry.atMs, entry.id), entry);
}

/** The sessions an index lists (`identityKeys.memberSessions`, `hotkeySessions`), as stored. */
export async function sessionsUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<SessionRecord[]> {
  const ids = await idsUnder(kv, prefix);
  const entries = await getAll<SessionRecord>(kv, ids.map((id) => keys.session(id)));
  return entries.flatMap((entry) => entry.value ? [entry.value] : []);
}

/** Adds the deletion of a session and its index entries to the commit. */
export function deleteSession(op: Deno.AtomicOperation, session: SessionRecord): void {
  op.delete(keys.session(session.id))
    .delete(keys.memberSession(session.memberId, session.id))
    .delete(keys.sessionExpiry(session.expiresAtMs, session.id));
  if (session.via.kind === "hotkey") op.delete(keys.hotkeySession(session.via.hotkey, session.id));
}

/** Deletes sessions in commits of `SESSIONS_PER_COMMIT`; answers how many. */
export async function deleteSessions(kv: Deno.Kv, sessions: readonly SessionRecord[]): Promise<number> {
  for (let at = 0; at < sessions.length; at += SESSIONS_PER_COMMIT) {
    await commitAtomic(() => {
      const op = kv.atomic();
      for (const session of sessions.slice(at, at + SESSIONS_PER_COMMIT)) deleteSession(op, session);
      return op;
    });
  }
  return sessions.length;
}

/** The values of `keys`, read ten at a time (Deno KV's most per `getMany`). */
export async function getAll<T>(
  kv: Deno.Kv,
  entryKeys: readonly Deno.KvKey[],
): Promise<Deno.KvEntryMaybe<T>[]> {
  const out: Deno.KvEntryMaybe<T>[] = [];
  for (let at = 0; at < entryKeys.length; at += 10) {
    out.push(...await kv.getMany<T[]>(entryKeys.slice(at, at + 10)));
  }
  return out;
}

/** The last part of each key under `prefix` (the ids an index lists). */
export async function idsUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<string[]> {
  const ids: string[] = [];
  for await (const entry of kv.list({ prefix })) ids.push(String(entry.key.at(-1)));
  return ids;
}

/** Adds an invitation and its index entries (by org, by expiry) to the commit. */
export function putInvitation(op: Deno.AtomicOperation, invitation: InvitationRecord): void {
  op.set(keys.invitation(invitation.id), invitation)
    .set(keys.orgInvitation(invitation.orgId, invitation.id), null)
    .set(keys.invitationExpiry(invitation.expiresAtMs, invitation.id), null);
}

/** Adds the deletion of an invitation and its index entries to the commit. */
export function deleteInvitation(op: Deno.AtomicOperation, invitation: InvitationRecord): void {
  op.delete(keys.invitation(invitation.id))
    .delete(keys.orgInvitation(invitation.orgId, invitation.id))
    .delete(keys.invitationExpiry(invitation.expiresAtMs, invitation.id));
}
