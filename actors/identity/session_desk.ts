import { base64urlnopad } from "@scure/base";
import { type Clock, ServiceError } from "../kernel/mod.ts";
import type { MemberRecord, MemberStore } from "../../storage/member_store.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import type {
  ChallengePurpose,
  SessionRecord,
  SessionStore,
  SessionView,
  SignInVia,
} from "../../storage/session_store.ts";
import { CHALLENGE_TTL_MS, SESSION_TOUCH_MS, sessionEndsAt } from "./identity_terms.ts";
import {
  formatSecretToken,
  hashText,
  newSecretToken,
  parseSecretToken,
  secretMatches,
} from "./secret_token.ts";

export interface SessionDeskDeps {
  sessions: SessionStore;
  members: Pick<MemberStore, "member">;
  orgs: Pick<OrgStore, "minerRegistration">;
  clock: Clock;
}

/** A signed-in request's session and its member as stored now (its role is the member's current one). */
export interface SignedIn {
  session: SessionRecord;
  member: MemberRecord;
}

/**
 * Dashboard sessions and sign-in challenges. No single id owns these writes across instances, so
 * each is one conditional step in `SessionStore` (docs/architecture.md): a session is created
 * once, touched at most once a minute by whichever instance sees it first, and ended by deleting
 * it, which every instance sees at its next request.
 */
export class SessionDesk {
  readonly #deps: SessionDeskDeps;

  constructor(deps: SessionDeskDeps) {
    this.#deps = deps;
  }

  /**
   * Starts a new session of `memberId` (a new id at every sign-in) and answers its token, the
   * cookie's value. 404 for a member that does not exist; a hotkey sign-in needs the hotkey linked
   * with proof and bound to that member (else 401 `unauthenticated`).
   */
  async start(memberId: string, via: SignInVia): Promise<SignedIn & { token: string }> {
    const { members, orgs, sessions, clock } = this.#deps;
    const member = await members.member(memberId);
    if (!member) throw new ServiceError("not_found", "Member not found");
    if (via.kind === "hotkey" && !hotkeySignsIn(await orgs.minerRegistration(via.hotkey), member)) {
      throw new ServiceError("unauthenticated", "This hotkey does not sign in to the organisation");
    }
    const token = newSecretToken();
    const nowMs = clock();
    const session: SessionRecord = {
      id: token.id,
      secretHash: hashText(token.secret),
      memberId: member.id,
      orgId: member.orgId,
      via,
      createdAtMs: nowMs,
      lastSeenAtMs: nowMs,
      expiresAtMs: sessionEndsAt({ createdAtMs: nowMs, lastSeenAtMs: nowMs }),
    };
    await sessions.create(session);
    return { session, member, token: formatSecretToken(token) };
  }

  /**
   * The session a cookie's token names, while it holds: its secret matches, it has not ended (idle
   * 12 h, absolute 7 d), its member is still one, and a hotkey session's hotkey is still linked
   * and bound to that member. A session found ended is deleted. Its last-seen time is written at
   * most once a minute.
   */
  async resume(token: string): Promise<SignedIn | null> {
    const parsed = parseSecretToken(token);
    if (!parsed) return null;
    const view = await this.#deps.sessions.find(parsed.id);
    if (!view || !secretMatches(parsed.secret, view.session.secretHash)) return null;
    const nowMs = this.#deps.clock();
    const member = holds(view, nowMs);
    if (!member) {
      await this.#deps.sessions.end(view.session.id);
      return null;
    }
    return { session: await this.#touch(view.session, nowMs), member };
  }

  /** Ends one session (sign-out); false when there was none. */
  end(sessionId: string): Promise<boolean> {
    return this.#deps.sessions.end(sessionId);
  }

  /** Ends every session of a member; answers how many. */
  endAllOf(memberId: string): Promise<number> {
    return this.#deps.sessions.endForMember(memberId);
  }

  /** Ends every session signed in with `hotkey`; answers how many. */
  endAllViaHotkey(hotkey: string): Promise<number> {
    return this.#deps.sessions.endForHotkey(hotkey);
  }

  /**
   * A new single-use challenge (32 random bytes, base64url) for `purpose`, bound to the browser
   * that asked (`browserId`: its pre-session id, or its session id when signed in), valid 5 min.
   */
  async issueChallenge(browserId: string, purpose: ChallengePurpose): Promise<string> {
    const challenge = base64urlnopad.encode(crypto.getRandomValues(new Uint8Array(32)));
    const nowMs = this.#deps.clock();
    await this.#deps.sessions.issueChallenge({
      challengeHash: hashText(challenge),
      browserHash: hashText(browserId),
      purpose,
      createdAtMs: nowMs,
      expiresAtMs: nowMs + CHALLENGE_TTL_MS,
    });
    return challenge;
  }

  /**
   * Uses up `challenge` when it was issued for `purpose` to `browserId` less than 5 minutes ago;
   * false otherwise (a replay, another browser, another ceremony, or too late).
   */
  async consumeChallenge(challenge: string, browserId: string, purpose: ChallengePurpose): Promise<boolean> {
    const consumed = await this.#deps.sessions.consumeChallenge(hashText(challenge), {
      browserHash: hashText(browserId),
      purpose,
      nowMs: this.#deps.clock(),
    });
    return consumed !== null;
  }

  async #touch(session: SessionRecord, nowMs: number): Promise<SessionRecord> {
    if (nowMs - session.lastSeenAtMs < SESSION_TOUCH_MS) return session;
    const seen = { ...session, lastSeenAtMs: nowMs };
    const touched = { ...seen, expiresAtMs: sessionEndsAt(seen) };
    // Lost to another instance touching it at the same time: theirs is as good.
    await this.#deps.sessions.touch(session.id, {
      seenAtMs: session.lastSeenAtMs,
      lastSeenAtMs: nowMs,
      expiresAtMs: touched.expiresAtMs,
    });
    return touched;
  }
}

/** The session's member while the session holds at `nowMs`; null once it has ended. */
function holds(view: SessionView, nowMs: number): MemberRecord | null {
  const { session, member } = view;
  if (nowMs >= sessionEndsAt(session) || nowMs >= session.expiresAtMs) return null;
  if (!member || member.orgId !== session.orgId) return null;
  if (session.via.kind === "hotkey" && !hotkeySignsIn(view.hotkey, member)) return null;
  return member;
}

/** True when the registration lets its hotkey sign in as `member`: linked with proof, bound to it. */
function hotkeySignsIn(
  registration: { orgId: string; linkedWithProof: boolean; boundMemberId: string | null } | null,
  member: MemberRecord,
): boolean {
  return registration !== null && registration.orgId === member.orgId && registration.linkedWithProof &&
    registration.boundMemberId === member.id;
}
