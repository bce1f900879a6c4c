import type { Assignment, Lease } from "../assignment_record.ts";
import type { ClaimOptions, ClaimResult } from "../assignment_store.ts";
import type { StoredEvent } from "../event_record.ts";
import {
  assignmentKey,
  commitWrites,
  gateKey,
  getAll,
  heldKey,
  isClaimable,
  type MinerEntry,
  minerKey,
  type QueueEntry,
  writeAssignment,
  writeMiner,
} from "./_assignment_keys.ts";
import { eventKey } from "./kv_event_store.ts";
import { type CountedUse, nonceKey, takeNonce, takeNonceAlone, usedAlready } from "./_kv_signed_use.ts";

/** What one claim attempt read, to check in its commit. */
export interface Candidate {
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
  if (queued.claimableAtMs > nowMs || queued.eventEndsAtMs <= nowMs) return null;
  if (queued.agentVersionId !== miner.value.agentVersionId) return null;
  const [assignment, event] = await kv.getMany<[Assignment, StoredEvent]>([
    assignmentKey(queued.agentPredictionId),
    eventKey(queued.eventId),
  ]);
  if (!assignment.value || !isClaimable(assignment.value, nowMs)) return null;
  if (!event.value || event.value.retired || event.value.event.resolution.resolutionStatus !== "unresolved") {
    return null;
  }
  return { assignment: assignment as Deno.KvEntry<Assignment>, miner, event: event.value };
}

/** The first of `queued` (in order) that verifies. */
async function firstValid(
  kv: Deno.Kv,
  queued: Iterable<QueueEntry> | AsyncIterable<QueueEntry>,
  miner: Deno.KvEntry<MinerEntry>,
  nowMs: number,
): Promise<Candidate | null> {
  for await (const entry of queued) {
    const candidate = await verify(kv, entry, miner, nowMs);
    if (candidate) return candidate;
  }
  return null;
}

async function* values<T>(entries: Deno.KvListIterator<T>): AsyncIterable<T> {
  for await (const entry of entries) yield entry.value;
}

type Ending = Pick<QueueEntry, "eventEndsAtMs" | "agentPredictionId">;

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Soonest-ending event first, then by id. */
function bySoonestEnd(a: Ending, b: Ending): number {
  return a.eventEndsAtMs - b.eventEndsAtMs || compareText(a.agentPredictionId, b.agentPredictionId);
}

/**
 * A miner's next claimable assignment: its soonest-ending available one or expired lease,
 * whichever ends first (the event stored, unresolved, not ended; the miner's newest version).
 */
export async function nextOfMiner(
  kv: Deno.Kv,
  miner: Deno.KvEntry<MinerEntry>,
  nowMs: number,
): Promise<Candidate | null> {
  const hotkey = miner.value.hotkey;
  const available = kv.list<QueueEntry>(
    { prefix: ["asg_available", hotkey], start: ["asg_available", hotkey, nowMs] },
    { batchSize: 16 },
  );
  const fresh = await firstValid(kv, values(available), miner, nowMs);
  const expired: QueueEntry[] = [];
  for await (const entry of kv.list<QueueEntry>({ prefix: ["asg_leased", hotkey] })) {
    if (entry.value.claimableAtMs > nowMs) break;
    if (!fresh || bySoonestEnd(entry.value, fresh.assignment.value) < 0) {
      expired.push(entry.value);
    }
  }
  const reclaimed = await firstValid(kv, expired.sort(bySoonestEnd), miner, nowMs);
  return reclaimed ?? fresh;
}

/** Whether any assignment might be claimable now (available and not ended, or lease expired). */
async function anyClaimable(kv: Deno.Kv, nowMs: number): Promise<boolean> {
  for await (const entry of kv.list({ prefix: ["asg_open"], start: ["asg_open", nowMs] })) {
    if ((entry.key[1] as number) > nowMs) return true;
  }
  for await (const entry of kv.list<QueueEntry>({ prefix: ["asg_expiry"] })) {
    if (entry.value.claimableAtMs > nowMs) return false;
    if (entry.value.eventEndsAtMs > nowMs) return true;
  }
  return false;
}

/** The first claimable fresh run, taking miners in turn order (fewest leases, then hotkey). */
async function pickPriority(kv: Deno.Kv, nowMs: number): Promise<Candidate | null> {
  const queued: QueueEntry[] = [];
  for await (
    const entry of kv.list<QueueEntry>({ prefix: ["asg_priority"], start: ["asg_priority", nowMs] })
  ) {
    if (entry.value.claimableAtMs <= nowMs) queued.push(entry.value);
  }
  if (queued.length === 0) return null;
  const hotkeys = [...new Set(queued.map((entry) => entry.minerHotkey))];
  const miners = new Map<string, Deno.KvEntry<MinerEntry>>();
  (await getAll<MinerEntry>(kv, hotkeys.map(minerKey))).forEach((entry, index) => {
    if (entry.value?.eligible) miners.set(hotkeys[index]!, entry as Deno.KvEntry<MinerEntry>);
  });
  const turn = (entry: QueueEntry) => miners.get(entry.minerHotkey)!.value;
  const ordered = queued.filter((entry) => miners.has(entry.minerHotkey)).sort((a, b) =>
    turn(a).leasedCount - turn(b).leasedCount || compareText(a.minerHotkey, b.minerHotkey) ||
    bySoonestEnd(a, b)
  );
  for (const entry of ordered) {
    const candidate = await verify(kv, entry, miners.get(entry.minerHotkey)!, nowMs);
    if (candidate) return candidate;
  }
  return null;
}

/** The next claimable assignment of the first eligible miner in turn order that has one. */
export async function pickOrdinary(kv: Deno.Kv, nowMs: number): Promise<Candidate | null> {
  for await (const miner of kv.list<MinerEntry>({ prefix: ["asg_turn"] })) {
    if (!miner.value.eligible) continue;
    const candidate = await nextOfMiner(kv, miner, nowMs);
    if (candidate) return candidate;
  }
  return null;
}

/** What one claim attempt decided before its commit: a final answer, or the candidate to lease. */
async function choose(kv: Deno.Kv, holdings: Holdings, maxLive: number, nowMs: number) {
  if (holdings.live >= maxLive) return { kind: "limit", live: holdings.live } as const;
  if (!await anyClaimable(kv, nowMs)) return { kind: "none" } as const;
  return await pickPriority(kv, nowMs) ?? await pickOrdinary(kv, nowMs) ?? { kind: "none" } as const;
}

/**
 * One claim attempt: reads the validator's leases and the queue, picks, and commits the lease
 * checked against every entry the choice rests on: the assignment (nobody claimed or submitted it
 * since), the miner's record (nobody leased that miner since: the round-robin holds across
 * handles) and the validator's gate (none of its other claims committed since: maxLive holds).
 * With a counted use, its nonce is read first (a live use: `use_refused`, nothing written) and
 * taken in the same commit as the lease, or alone for `none` and `limit`. Null when the commit
 * lost a race: the caller tries again.
 */
export async function tryClaim(
  kv: Deno.Kv,
  validator: string,
  options: Omit<ClaimOptions, "use"> & { nowMs: number; token: string; use?: CountedUse },
): Promise<ClaimResult | null> {
  const { nowMs, use } = options;
  const [holdings, nonce] = await Promise.all([
    readHoldings(kv, validator, nowMs),
    use ? kv.get<number>(nonceKey(use.use.hotkey, use.use.nonce)) : null,
  ]);
  const refused = use && nonce ? usedAlready(use, nonce, nowMs) : null;
  if (refused) return { kind: "use_refused", use: refused };
  const candidate = await choose(kv, holdings, options.maxLive, nowMs);
  if ("kind" in candidate) {
    return use && nonce && !await takeNonceAlone(kv, use, nonce, nowMs) ? null : candidate;
  }
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
  const miner = candidate.miner.value;
  const commit = await commitWrites(kv, (op) => {
    op.check(candidate.assignment, candidate.miner, holdings.gate);
    if (use && nonce) takeNonce(op, nonce, use.use.ttlMs, nowMs);
    writeAssignment(op, before, after);
    const held = heldKey(validator, before.agentPredictionId);
    const former = before.lease?.validatorHotkey;
    if (former && former !== validator) op.delete(heldKey(former, before.agentPredictionId));
    for (const key of holdings.expiredKeys) if (key[2] !== held[2]) op.delete(key);
    op.set(held, lease.expiresAtMs);
    op.set(gateKey(validator), (holdings.gate.value ?? 0) + 1);
    writeMiner(op, { ...miner, leasedCount: miner.leasedCount + 1 }, miner.leasedCount);
  });
  return commit.ok
    ? {
      kind: "claimed",
      assignment: after,
      event: candidate.event.event,
      eventVersion: candidate.event.version,
    }
    : null;
}
