import type { Sql } from "postgres";
import type {
  ChallengePurpose,
  ChallengeRecord,
  SessionRecord,
  SessionStore,
  SessionView,
} from "../session_store.ts";
import {
  type MemberRow,
  type MinerRow,
  type SessionRow,
  toMember,
  toMiner,
  toSession,
} from "./_pg_identity_rows.ts";

type FoundRow = SessionRow & {
  m_id: string | null;
  m_org_id: string;
  m_display_name: string;
  m_role: MemberRow["role"];
  m_created_at_ms: bigint;
  k_hotkey: string | null;
  k_org_id: string;
  k_registered_at_ms: bigint;
  k_linked_with_proof: boolean;
  k_bound_member_id: string | null;
};

interface ChallengeRow {
  challenge_hash: string;
  browser_hash: string;
  purpose: ChallengePurpose;
  created_at_ms: bigint;
  expires_at_ms: bigint;
}

/** Sessions and challenges in PostgreSQL; a session is read with its member and hotkey in one statement. */
export class PgSessionStore implements SessionStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async create(session: SessionRecord): Promise<void> {
    const hotkey = session.via.kind === "hotkey" ? session.via.hotkey : null;
    await this.#sql`
      INSERT INTO dashboard_sessions
        (id, secret_hash, member_id, org_id, via_hotkey, created_at_ms, last_seen_at_ms, expires_at_ms)
      VALUES (${session.id}, ${session.secretHash}, ${session.memberId}, ${session.orgId}, ${hotkey},
        ${session.createdAtMs}, ${session.lastSeenAtMs}, ${session.expiresAtMs})`;
  }

  async find(sessionId: string): Promise<SessionView | null> {
    const [row] = await this.#sql<FoundRow[]>`
      SELECT s.*,
        m.id AS m_id, m.org_id AS m_org_id, m.display_name AS m_display_name, m.role AS m_role,
        m.created_at_ms AS m_created_at_ms,
        k.hotkey AS k_hotkey, k.org_id AS k_org_id, k.registered_at_ms AS k_registered_at_ms,
        k.linked_with_proof AS k_linked_with_proof, k.bound_member_id AS k_bound_member_id
      FROM dashboard_sessions s
      LEFT JOIN members m ON m.id = s.member_id
      LEFT JOIN org_miners k ON k.hotkey = s.via_hotkey
      WHERE s.id = ${sessionId}`;
    if (!row) return null;
    return {
      session: toSession(row),
      member: row.m_id === null ? null : toMember({
        id: row.m_id,
        org_id: row.m_org_id,
        display_name: row.m_display_name,
        role: row.m_role,
        created_at_ms: row.m_created_at_ms,
      }),
      hotkey: row.k_hotkey === null ? null : toMiner(minerRow(row)),
    };
  }

  async touch(
    sessionId: string,
    options: { seenAtMs: number; lastSeenAtMs: number; expiresAtMs: number },
  ): Promise<boolean> {
    const rows = await this.#sql`
      UPDATE dashboard_sessions SET last_seen_at_ms = ${options.lastSeenAtMs}, expires_at_ms = ${options.expiresAtMs}
      WHERE id = ${sessionId} AND last_seen_at_ms = ${options.seenAtMs} RETURNING id`;
    return rows.length === 1;
  }

  async end(sessionId: string): Promise<boolean> {
    const rows = await this.#sql`DELETE FROM dashboard_sessions WHERE id = ${sessionId} RETURNING id`;
    return rows.length === 1;
  }

  async endForMember(memberId: string): Promise<number> {
    const rows = await this.#sql`DELETE FROM dashboard_sessions WHERE member_id = ${memberId} RETURNING id`;
    return rows.length;
  }

  async endForHotkey(hotkey: string): Promise<number> {
    const rows = await this.#sql`DELETE FROM dashboard_sessions WHERE via_hotkey = ${hotkey} RETURNING id`;
    return rows.length;
  }

  async issueChallenge(challenge: ChallengeRecord): Promise<void> {
    await this.#sql`
      INSERT INTO signin_challenges (challenge_hash, browser_hash, purpose, created_at_ms, expires_at_ms)
      VALUES (${challenge.challengeHash}, ${challenge.browserHash}, ${challenge.purpose},
        ${challenge.createdAtMs}, ${challenge.expiresAtMs})`;
  }

  async consumeChallenge(
    challengeHash: string,
    options: { browserHash: string; purpose: ChallengePurpose; nowMs: number },
  ): Promise<ChallengeRecord | null> {
    const [row] = await this.#sql<ChallengeRow[]>`
      DELETE FROM signin_challenges
      WHERE challenge_hash = ${challengeHash} AND browser_hash = ${options.browserHash}
        AND purpose = ${options.purpose} AND expires_at_ms > ${options.nowMs}
      RETURNING *`;
    if (!row) return null;
    return {
      challengeHash: row.challenge_hash,
      browserHash: row.browser_hash,
      purpose: row.purpose,
      createdAtMs: Number(row.created_at_ms),
      expiresAtMs: Number(row.expires_at_ms),
    };
  }

  async purgeExpired(nowMs: number): Promise<{ sessions: number; challenges: number }> {
    const sessions = await this
      .#sql`DELETE FROM dashboard_sessions WHERE expires_at_ms <= ${nowMs} RETURNING id`;
    const challenges = await this.#sql`
      DELETE FROM signin_challenges WHERE expires_at_ms <= ${nowMs} RETURNING challenge_hash`;
    return { sessions: sessions.length, challenges: challenges.length };
  }
}

function minerRow(row: FoundRow): MinerRow {
  return {
    hotkey: row.k_hotkey!,
    org_id: row.k_org_id,
    registered_at_ms: row.k_registered_at_ms,
    linked_with_proof: row.k_linked_with_proof,
    bound_member_id: row.k_bound_member_id,
  };
}
