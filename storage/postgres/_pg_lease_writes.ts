/**
 * The validator loop's two writes in PostgreSQL, each ONE statement (one round trip, one commit)
 * that also makes the signed request's nonce use and rate hit when given one (`useGate`): the claim
 * (`claim_assignment`, migrations 007 and 013) and the submission.
 */
import type { Fragment, Sql } from "postgres";
import { StoreRefusal } from "../store_refusal.ts";
import type { Assignment, Lease } from "../assignment_record.ts";
import type {
  ClaimOptions,
  ClaimResult,
  HeldLeaseOptions,
  SubmitOptions,
  SubmitReceipt,
} from "../assignment_store.ts";
import type { EventRecord } from "../event_record.ts";
import { type AssignmentRow, jsonParam, toAssignment } from "./_pg_assignment_rows.ts";
import { useGate } from "./_pg_signed_use.ts";

type ClaimReply =
  | { outcome: "claimed"; assignment: AssignmentRow; event: EventRecord; eventVersion: number }
  | { outcome: "none" }
  | { outcome: "limit"; live: number };

/** What the use made, and the claim's reply when the use let it run. */
interface ClaimRow {
  fresh: boolean;
  count: number;
  reply: ClaimReply | null;
}

/**
 * `claim_assignment` runs only when the gate's row says go: after the nonce and the window are
 * upserted (their rows locked first), in the same statement, so a refused use claims nothing and
 * an admitted one commits with the claim (or alone, for `none` and `limit`).
 */
export async function claimAssignment(
  sql: Sql,
  validatorHotkey: string,
  { leaseMs, maxLive, use }: ClaimOptions,
): Promise<ClaimResult> {
  const [row] = await sql<ClaimRow[]>`
    WITH ${useGate(sql, use)}
    SELECT fresh, count, CASE WHEN go THEN
      claim_assignment(${validatorHotkey}, ${Math.ceil(leaseMs)}::BIGINT, ${maxLive}::INT) END AS reply
    FROM gate`;
  const { fresh, count, reply } = row!;
  if (reply === null) return { kind: "use_refused", use: { fresh, count } };
  if (reply.outcome === "none") return { kind: "none" };
  if (reply.outcome === "limit") return { kind: "limit", live: reply.live };
  const assignment = toAssignment(reply.assignment);
  return {
    kind: "claimed",
    assignment: { ...assignment, lease: assignment.lease as Lease },
    event: reply.event,
    eventVersion: reply.eventVersion,
  };
}

/** What the submit statement saw of the use and the assignment, and whether it stored the prediction. */
interface SubmitRow {
  fresh: boolean;
  count: number;
  go: boolean;
  found: boolean;
  status: Assignment["status"] | null;
  lease_holder: string | null;
  stored: boolean;
  /** The lease checks passed but the event is no longer at the given version. */
  event_changed: boolean;
}

export async function submitPrediction(
  sql: Sql,
  agentPredictionId: string,
  options: SubmitOptions,
): Promise<SubmitReceipt> {
  const row = await submitStatement(sql, agentPredictionId, options);
  if (!row.go) {
    return { agentPredictionId, stored: false, useRefused: { fresh: row.fresh, count: row.count } };
  }
  if (!row.found) throw new StoreRefusal("not_found", `No assignment ${agentPredictionId}`);
  if (row.stored) return { agentPredictionId, stored: true };
  if (row.event_changed) return { agentPredictionId, stored: false, eventChanged: true };
  const done = row.status === "submitted" || row.status === "scored";
  if (done && row.lease_holder === options.validatorHotkey) return { agentPredictionId, stored: false };
  throw new StoreRefusal("lease_not_held", `The lease of ${agentPredictionId} is not held by this validator`);
}

/**
 * After the use's gate: locks the row (a concurrent retry waits, then sees the submitted row), marks
 * it submitted when the caller holds the lease within its grace, and inserts the prediction and
 * trace from that update's result: all or nothing, and never twice (the update matches only an
 * in_progress row). A gate that says no makes `target` empty: nothing locked, nothing written.
 */
async function submitStatement(sql: Sql, id: string, options: SubmitOptions): Promise<SubmitRow> {
  const version = options.eventVersion ?? null;
  const [row] = await sql<SubmitRow[]>`
    WITH ${useGate(sql, options.use)}, target AS (
      SELECT id, status, lease_holder, lease_token, lease_expires_at_ms, event_id FROM assignments
      WHERE id = ${id} AND (SELECT go FROM gate) FOR UPDATE
    ), held AS (
      SELECT t.id, (${version}::INT IS NULL
        OR (SELECT e.version FROM events e WHERE e.id = t.event_id) IS NOT DISTINCT FROM ${version}::INT) AS same
      FROM target t
      WHERE ${leaseHeld(sql, options)}
    ), accepted AS (
      UPDATE assignments a SET status = 'submitted' FROM held h WHERE a.id = h.id AND h.same
      RETURNING a.*
    ), stored AS (
      INSERT INTO predictions (agent_prediction_id, event_id, agent_version_id, round, miner_hotkey,
        miner_uid, validator_hotkey, predicted_at_ms, outcome_prices_at_prediction, reported, validation)
      SELECT id, event_id, agent_version_id, round, miner_hotkey, miner_uid, lease_holder,
        ${options.receivedAtMs}, COALESCE(lease_prices, '{}'::JSONB),
        ${jsonParam(sql, options.prediction)}, ${jsonParam(sql, options.validation)}
      FROM accepted
      RETURNING agent_prediction_id
    ), traced AS (
      INSERT INTO prediction_traces (agent_prediction_id, trace)
      SELECT agent_prediction_id, ${jsonParam(sql, options.trace ?? null)} FROM stored
    )
    SELECT g.fresh, g.count, g.go, t.id IS NOT NULL AS found, t.status, t.lease_holder,
      EXISTS (SELECT 1 FROM stored) AS stored, EXISTS (SELECT 1 FROM held WHERE NOT same) AS event_changed
    FROM gate g LEFT JOIN target t ON true`;
  return row!;
}

/**
 * The condition that the assignment row `t` is in progress under a lease `options.validatorHotkey`
 * holds now, on the storage's clock (`storage_now_ms()`): live, or at most `graceMs` past its
 * expiry (a re-claim made another validator, or a new token, the holder). What a submission and a
 * validator completion both require (`holdsLease` is the same rule in memory).
 */
export function leaseHeld(sql: Sql, options: HeldLeaseOptions & { leaseToken?: string }): Fragment {
  const token = options.leaseToken ?? null;
  return sql`t.status = 'in_progress' AND t.lease_holder = ${options.validatorHotkey}
    AND (${token}::TEXT IS NULL OR t.lease_token = ${token})
    AND storage_now_ms() <= t.lease_expires_at_ms + ${Math.floor(options.graceMs)}::BIGINT`;
}
