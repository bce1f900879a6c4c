import type { Assignment, Lease } from "../assignment_record.ts";
import type { ClaimOptions, ClaimResult } from "../assignment_store.ts";
import type { StoredEvent } from "../event_record.ts";
import {
  assignmentKey,
  commitWrites,
  gateKey,
  heldKey,
  isClaimable,
  type MinerEntry,
  type QueueEntry,
  SEQ_KEY,
  writeAssignment,
  writeMiner,
} from "./_assignment_keys.ts";
import { eventKey } from "./kv_event_store.ts";

/** What one claim attempt read, to check in its commit. */
interface Candidate {
  assignment: Deno.KvEntry<Assignment>;
  miner: Deno.KvEntry<MinerEntry>;
  event: StoredEvent;
}

/** A validator's leases as read: the gate entry its claims check, live and expired leases. */
interface Holdings {
  gate: Deno.KvEntryMaybe<number>;
  live: number;
  expiredKeys: Deno.KvKey[];
}

async function readHoldings(kv: Deno.Kv, validator: string, nowMs: number): Promise<Holdings> {
  const gate = await kv.get<number>(gateKey(validator));
  let live = 0;
  const expiredKeys: Deno.KvKey[] = [];
  for await (const entry of kv.list<number>({ prefix: ["asg_held", validator] })) {
    if (entry.value > nowMs) live++;
    else expiredKeys.push(entry.key);
  }
  return { gate, live, expiredKeys };
}

/** Reads the queued assignment and its event; a candidate when both say it may be claimed now. */
async function verify(
  kv: Deno.Kv,
  queued: QueueEntry,
  miner: Deno.KvEntry<MinerEntry>,
  nowMs: number,
): Promise<Candidate | null> {
  if (queued.claimableAtMs > nowMs || queued.agentVersionId !== miner.value.agentVersionId) return null;
  const [assignment, event] = await kv.getMany<[Assignment, StoredEvent]>([
    assignmentKey(queued.agentPredictionId),
    eventKey(queued.eventId),
  ]);
  if (!assignment.value || !isClaimable(assignment.value, nowMs)) return null;
  if (assignment.value.eventEndsAtMs <= nowMs) return null;
  if (event.value?.event.resolution.resolutionStatus !== "unresolved") return null;
  return { assignment: assignment as Deno.KvEntry<Assignment>, miner, event: event.value };
}

/** Eligible miners in turn order: leased longest ago (never = 0) first, then by hotkey. */
async function minersInTurn(kv: Deno.Kv): Promise<Deno.KvEntry<MinerEntry>[]> {
  const out: Deno.KvEntry<MinerEntry>[] = [];
  for await (const entry of kv.list<MinerEntry>({ prefix: ["asg_turn"] })) {
    if (entry.value.eligible) out.push(entry);
  }
  return out;
}

/** The first claimable fresh-run assignment, taking miners in turn order. */
async function pickPriority(
  kv: Deno.Kv,
  miners: Deno.KvEntry<MinerEntry>[],
  nowMs: number,
): Promise<Candidate | null> {
  const turn = new Map(miners.map((miner, index) => [miner.value.hotkey, index]));
  const queued: QueueEntry[] = [];
  for await (
    const entry of kv.list<QueueEntry>({ prefix: ["asg_priority"], start: ["asg_priority", nowMs] })
  ) {
    if (entry.value.claimableAtMs <= nowMs && turn.has(entry.value.minerHotkey)) queued.push(entry.value);
  }
  // Stable sort: within a miner the index order (soonest-ending event first) is kept.
  queued.sort((a, b) => turn.get(a.minerHotkey)! - turn.get(b.minerHotkey)!);
  for (const entry of queued) {
    const candidate = await verify(kv, entry, miners[turn.get(entry.minerHotkey)!]!, nowMs);
    if (candidate) return candidate;
  }
  return null;
}

/** The soonest-ending claimable assignment of the first miner in turn that has one. */
async function pickOrdinary(
  kv: Deno.Kv,
  miners: Deno.KvEntry<MinerEntry>[],
  nowMs: number,
): Promise<Candidate | null> {
  for (const miner of miners) {
    const hotkey = miner.value.hotkey;
    const selector = { prefix: ["asg_queue", hotkey], start: ["asg_queue", hotkey, nowMs] };
    for await (const entry of kv.list<QueueEntry>(selector, { batchSize: 32 })) {
      const candidate = await verify(kv, entry.value, miner, nowMs);
      if (candidate) return candidate;
    }
  }
  return null;
}

/**
 * One claim attempt: reads the validator's leases and the queue, picks, and commits the lease
 * checked against every entry the choice rests on: the assignment (nobody claimed or submitted it
 * since), the miner's turn record (nobody leased that miner since: the round-robin holds across
 * handles) and the validator's gate (none of its other claims committed since: maxLive holds).
 * Null when the commit lost a race: the caller tries again.
 */
export async function tryClaim(
  kv: Deno.Kv,
  validator: string,
  options: ClaimOptions & { nowMs: number; token: string },
): Promise<ClaimResult | null> {
  const { nowMs } = options;
  const holdings = await readHoldings(kv, validator, nowMs);
  if (holdings.live >= options.maxLive) return { kind: "limit", live: holdings.live };
  const miners = await minersInTurn(kv);
  const candidate = await pickPriority(kv, miners, nowMs) ?? await pickOrdinary(kv, miners, nowMs);
  if (!candidate) return { kind: "none" };
  const before = candidate.assignment.value;
  const lease: Lease = {
    validatorHotkey: validator,
    token: options.token,
    leasedAtMs: nowMs,
    expiresAtMs: nowMs + options.leaseMs,
    outcomePrices: candidate.event.event.currentOutcomePrices,
  };
  const after: Assignment & { lease: Lease } = {
    ...before,
    status: "in_progress",
    lease,
    leaseCount: before.leaseCount + 1,
  };
  const seq = Number((await kv.get<Deno.KvU64>(SEQ_KEY)).value?.value ?? 0n) + 1;
  const miner = candidate.miner.value;
  const commit = await commitWrites(kv, (op) => {
    op.check(candidate.assignment, candidate.miner, holdings.gate);
    writeAssignment(op, before, after);
    const held = heldKey(validator, before.agentPredictionId);
    const former = before.lease?.validatorHotkey;
    if (former && former !== validator) op.delete(heldKey(former, before.agentPredictionId));
    for (const key of holdings.expiredKeys) if (key[2] !== held[2]) op.delete(key);
    op.set(held, lease.expiresAtMs);
    op.set(gateKey(validator), (holdings.gate.value ?? 0) + 1);
    writeMiner(op, { ...miner, lastLeasedSeq: seq }, miner.lastLeasedSeq);
    op.max(SEQ_KEY, BigInt(seq));
  });
  return commit.ok ? { kind: "claimed", assignment: after, event: candidate.event.event } : null;
}
