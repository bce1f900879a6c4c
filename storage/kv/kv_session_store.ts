import type { MemberRecord } from "../member_store.ts";
import type { MinerRegistration } from "../org_store.ts";
import { LOST, retryConditional } from "../retry_conditional.ts";
import type {
  ChallengePurpose,
  ChallengeRecord,
  SessionRecord,
  SessionStore,
  SessionView,
} from "../session_store.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { identityKeys as keys } from "./_identity_keys.ts";
import { deleteSession, deleteSessions, sessionsUnder } from "./_kv_identity_writes.ts";
import { orgKeys } from "./_org_keys.ts";
import { minerOf } from "./kv_org_store.ts";

const MAX_ATTEMPTS = 20;

/** Sessions (indexed by member, by hotkey and by expiry) and challenges (by expiry) in Deno KV. */
export class KvSessionStore implements SessionStore {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async create(session: SessionRecord): Promise<void> {
    const result = await commitAtomic(() => {
      const op = this.#kv.atomic().check({ key: keys.session(session.id), versionstamp: null })
        .set(keys.session(session.id), session)
        .set(keys.memberSession(session.memberId, session.id), null)
        .set(keys.sessionExpiry(session.expiresAtMs, session.id), null);
      if (session.via.kind === "hotkey") op.set(keys.hotkeySession(session.via.hotkey, session.id), null);
      return op;
    });
    if (!result.ok) throw new RangeError(`Cannot create session: id ${session.id} is taken`);
  }

  async find(sessionId: string): Promise<SessionView | null> {
    const session = (await this.#kv.get<SessionRecord>(keys.session(sessionId))).value;
    if (!session) return null;
    if (session.via.kind === "passkey") {
      const member = await this.#kv.get<MemberRecord>(keys.member(session.memberId));
      return { session, member: member.value, hotkey: null };
    }
    const [member, miner] = await this.#kv.getMany<[MemberRecord, MinerRegistration]>([
      keys.member(session.memberId),
      orgKeys.miner(session.via.hotkey),
    ]);
    return { session, member: member.value, hotkey: minerOf(miner.value) };
  }

  async touch(
    sessionId: string,
    options: { seenAtMs: number; lastSeenAtMs: number; expiresAtMs: number },
  ): Promise<boolean> {
    const entry = await this.#kv.get<SessionRecord>(keys.session(sessionId));
    const session = entry.value;
    if (!session || session.lastSeenAtMs !== options.seenAtMs) return false;
    const result = await commitAtomic(() =>
      this.#kv.atomic().check(entry)
        .set(keys.session(sessionId), {
          ...session,
          lastSeenAtMs: options.lastSeenAtMs,
          expiresAtMs: options.expiresAtMs,
        })
        .delete(keys.sessionExpiry(session.expiresAtMs, sessionId))
        .set(keys.sessionExpiry(options.expiresAtMs, sessionId), null)
    );
    return result.ok;
  }

  end(sessionId: string): Promise<boolean> {
    return retryConditional(async () => {
      const entry = await this.#kv.get<SessionRecord>(keys.session(sessionId));
      if (!entry.value) return false;
      const session = entry.value;
      const result = await commitAtomic(() => {
        const op = this.#kv.atomic().check(entry);
        deleteSession(op, session);
        return op;
      });
      return result.ok ? true : LOST;
    }, { what: "end session", attempts: MAX_ATTEMPTS });
  }

  async endForMember(memberId: string): Promise<number> {
    return await deleteSessions(this.#kv, await sessionsUnder(this.#kv, keys.memberSessions(memberId)));
  }

  async endForHotkey(hotkey: string): Promise<number> {
    return await deleteSessions(this.#kv, await sessionsUnder(this.#kv, keys.hotkeySessions(hotkey)));
  }

  async issueChallenge(challenge: ChallengeRecord): Promise<void> {
    const { challengeHash, expiresAtMs } = challenge;
    await commitAtomic(() =>
      this.#kv.atomic()
        .set(keys.challenge(challengeHash), challenge)
        .set(keys.challengeExpiry(expiresAtMs, challengeHash), null)
    );
  }

  consumeChallenge(
    challengeHash: string,
    options: { browserHash: string; purpose: ChallengePurpose; nowMs: number },
  ): Promise<ChallengeRecord | null> {
    return retryConditional(async () => {
      const entry = await this.#kv.get<ChallengeRecord>(keys.challenge(challengeHash));
      const challenge = entry.value;
      if (!challenge || !fits(challenge, options)) return null;
      const result = await commitAtomic(() =>
        this.#kv.atomic().check(entry)
          .delete(keys.challenge(challengeHash))
          .delete(keys.challengeExpiry(challenge.expiresAtMs, challengeHash))
      );
      return result.ok ? challenge : LOST;
    }, { what: "consume challenge", attempts: MAX_ATTEMPTS });
  }

  async purgeExpired(nowMs: number): Promise<{ sessions: number; challenges: number }> {
    const sessions: SessionRecord[] = [];
    for await (const index of this.#expired(keys.sessionExpiries(), nowMs)) {
      const session = (await this.#kv.get<SessionRecord>(keys.session(String(index.key.at(-1))))).value;
      // An index entry of a session since touched (or ended) is left over: dropped with it.
      if (session && session.expiresAtMs <= nowMs) sessions.push(session);
      else await this.#kv.delete(index.key);
    }
    let challenges = 0;
    for await (const index of this.#expired(keys.challengeExpiries(), nowMs)) {
      const challengeHash = String(index.key.at(-1));
      await commitAtomic(() => this.#kv.atomic().delete(index.key).delete(keys.challenge(challengeHash)));
      challenges++;
    }
    return { sessions: await deleteSessions(this.#kv, sessions), challenges };
  }

  #expired(prefix: Deno.KvKey, nowMs: number): Deno.KvListIterator<null> {
    return this.#kv.list<null>({ start: prefix, end: [...prefix, nowMs + 1] });
  }
}

function fits(challenge: ChallengeRecord, options: { browserHash: string; purpose: string; nowMs: number }) {
  return challenge.browserHash === options.browserHash && challenge.purpose === options.purpose &&
    challenge.expiresAtMs > options.nowMs;
}
