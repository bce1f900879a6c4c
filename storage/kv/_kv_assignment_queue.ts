import {
  agentPredictionId,
  type Assignment,
  type AssignmentTarget,
  distinctTargets,
} from "../assignment_record.ts";
import type { EnsureResult, RetireScope } from "../assignment_store.ts";
import { nextOfMiner } from "./_kv_assignment_claim.ts";
import {
  assignmentKey,
  commitWrites,
  getAll,
  isClaimable,
  type MinerEntry,
  minerKey,
  type QueueEntry,
  writeAssignment,
  writeMiner,
} from "./_assignment_keys.ts";

/** Targets per atomic commit: each checks its assignment and its miner (KV allows 100 checks). */
const MAX_BATCH = 48;
/** Assignments retired per atomic commit. */
const RETIRE_CHUNK = 90;
/** Re-reads of a batch whose commit lost a race (with a claim, say) before giving up. */
const MAX_ATTEMPTS = 50;

type Clock = () => number;

/** True when version `a` (uploaded at `aMs`) is newer than `b`: later upload, then greater id. */
function isNewer(a: { id: string; atMs: number }, b: { id: string; atMs: number }): boolean {
  return a.atMs !== b.atMs ? a.atMs > b.atMs : a.id > b.id;
}

/**
 * The miner records `batch` changes: a newer version (later upload, then greater id) replaces the
 * stored one; a target of the current version makes the miner eligible again; either way the
 * miner's lease count is raised to `floor` (a miner that gains work joins the rotation there).
 */
function nextMiners(
  batch: readonly AssignmentTarget[],
  stored: Map<string, Deno.KvEntryMaybe<MinerEntry>>,
  floor: number,
): Map<string, MinerEntry> {
  const next = new Map<string, MinerEntry>();
  for (const target of batch) {
    const current = next.get(target.minerHotkey) ?? stored.get(target.minerHotkey)?.value ?? null;
    const candidate = { id: target.agentVersionId, atMs: target.agentUploadedAtMs };
    const leasedCount = Math.max(current?.leasedCount ?? 0, floor);
    if (current && !isNewer(candidate, { id: current.agentVersionId, atMs: current.agentUploadedAtMs })) {
      const same = current.agentVersionId === target.agentVersionId;
      if (same && (!current.eligible || current.leasedCount < leasedCount)) {
        next.set(target.minerHotkey, { ...current, eligible: true, leasedCount });
      }
      continue;
    }
    next.set(target.minerHotkey, {
      hotkey: target.minerHotkey,
      agentVersionId: target.agentVersionId,
      agentUploadedAtMs: target.agentUploadedAtMs,
      eligible: true,
      leasedCount,
    });
  }
  return next;
}

function created(target: AssignmentTarget, id: string): Assignment {
  return {
    agentPredictionId: id,
    agentVersionId: target.agentVersionId,
    eventId: target.eventId,
    round: target.round ?? 0,
    minerHotkey: target.minerHotkey,
    minerUid: target.minerUid,
    eventEndsAtMs: target.eventEndsAtMs,
    status: "available",
    lease: null,
    leaseCount: 0,
  };
}

type Write = (op: Deno.AtomicOperation) => void;

/**
 * The write that makes the stored assignment (`before`, null when missing) what `target` asks
 * for, counted in `result`: create it, revive it, or refresh its uid and event end. Null when
 * nothing changes.
 */
function ensureWrite(
  target: AssignmentTarget,
  id: string,
  before: Assignment | null,
  result: EnsureResult,
): Write | null {
  if (!before) {
    result.created++;
    const after = created(target, id);
    return (op) => writeAssignment(op, null, after);
  }
  const revive = before.status === "retired";
  if (!revive && before.minerUid === target.minerUid && before.eventEndsAtMs === target.eventEndsAtMs) {
    return null;
  }
  if (revive) result.revived++;
  const after: Assignment = {
    ...before,
    minerUid: target.minerUid,
    eventEndsAtMs: target.eventEndsAtMs,
    status: revive ? "available" : before.status,
  };
  return (op) => writeAssignment(op, before, after);
}

/** One read–decide–commit of a batch; null when the commit lost a race (read again). */
async function tryBatch(
  kv: Deno.Kv,
  batch: readonly AssignmentTarget[],
  floor: number,
): Promise<EnsureResult | null> {
  const hotkeys = [...new Set(batch.map((target) => target.minerHotkey))];
  const minerEntries = await getAll<MinerEntry>(kv, hotkeys.map(minerKey));
  const stored = new Map(hotkeys.map((hotkey, index) => [hotkey, minerEntries[index]!]));
  const miners = nextMiners(batch, stored, floor);
  const head = (hotkey: string) => miners.get(hotkey) ?? stored.get(hotkey)!.value!;
  const current = batch.filter((target) => head(target.minerHotkey).agentVersionId === target.agentVersionId);
  const ids = current.map((target) => agentPredictionId({ ...target, round: target.round ?? 0 }));
  const entries = await getAll<Assignment>(kv, ids.map(assignmentKey));
  const result: EnsureResult = {
    created: 0,
    revived: 0,
    superseded: 0,
    stale: batch.length - current.length,
  };
  const writes: Write[] = [...miners].map(([hotkey, miner]) => (op) =>
    writeMiner(op, miner, stored.get(hotkey)!.value?.leasedCount ?? null)
  );
  current.forEach((target, index) => {
    const write = ensureWrite(target, ids[index]!, entries[index]!.value, result);
    if (write) writes.push(write);
  });
  const commit = await commitWrites(kv, (op) => {
    for (const entry of [...minerEntries, ...entries]) op.check(entry);
    for (const write of writes) write(op);
  });
  return commit.ok ? result : null;
}

/** The fewest leases among eligible miners that have claimable work (0 when none has). */
async function turnFloor(kv: Deno.Kv, nowMs: number): Promise<number> {
  for await (const miner of kv.list<MinerEntry>({ prefix: ["asg_turn"] })) {
    if (miner.value.eligible && await nextOfMiner(kv, miner, nowMs)) return miner.value.leasedCount;
  }
  return 0;
}

export async function ensureAssignments(
  kv: Deno.Kv,
  targets: readonly AssignmentTarget[],
  options: { batchSize?: number | undefined; now: Clock },
): Promise<EnsureResult> {
  targets = distinctTargets(targets);
  const size = Math.max(1, Math.min(MAX_BATCH, Math.floor(options.batchSize ?? MAX_BATCH)));
  const total: EnsureResult = { created: 0, revived: 0, superseded: 0, stale: 0 };
  const floor = await turnFloor(kv, options.now());
  for (let start = 0; start < targets.length; start += size) {
    const batch = targets.slice(start, start + size);
    let result: EnsureResult | null = null;
    for (let attempt = 0; !result && attempt < MAX_ATTEMPTS; attempt++) {
      result = await tryBatch(kv, batch, floor);
    }
    if (!result) throw new Error("Cannot ensure assignments: the queue is too contended");
    total.created += result.created;
    total.revived += result.revived;
    total.stale += result.stale;
  }
  for (const hotkey of new Set(targets.map((target) => target.minerHotkey))) {
    total.superseded += await retireQueued(kv, hotkey, { now: options.now, supersededOnly: true });
  }
  return total;
}

/** Retires the listed assignments that are still claimable (unleased) at the storage's now. */
async function retireIds(kv: Deno.Kv, ids: readonly string[], now: Clock): Promise<number> {
  let retired = 0;
  for (let start = 0; start < ids.length; start += RETIRE_CHUNK) {
    const chunk = ids.slice(start, start + RETIRE_CHUNK);
    for (let attempt = 0;; attempt++) {
      const entries = await getAll<Assignment>(kv, chunk.map(assignmentKey));
      const nowMs = now();
      const due = entries.filter((entry) => entry.value && isClaimable(entry.value, nowMs));
      const count = due.length;
      const apply = (op: Deno.AtomicOperation) => {
        for (const entry of due) {
          op.check(entry);
          writeAssignment(op, entry.value!, { ...entry.value!, status: "retired" });
        }
      };
      if (count === 0 || (await commitWrites(kv, apply)).ok) {
        retired += count;
        break;
      }
      if (attempt >= MAX_ATTEMPTS) throw new Error("Cannot retire assignments: the queue is too contended");
    }
  }
  return retired;
}

/** The ids in a miner's queue index `index` (available or leased) that `keep` selects. */
async function queued(kv: Deno.Kv, index: string, hotkey: string, keep: (entry: QueueEntry) => boolean) {
  const ids: string[] = [];
  for await (const entry of kv.list<QueueEntry>({ prefix: [index, hotkey] })) {
    if (keep(entry.value)) ids.push(entry.value.agentPredictionId);
  }
  return ids;
}

/** Retires a miner's unleased assignments: all, or those of older versions only. */
async function retireQueued(
  kv: Deno.Kv,
  hotkey: string,
  options: { now: Clock; supersededOnly?: boolean },
): Promise<number> {
  const miner = (await kv.get<MinerEntry>(minerKey(hotkey))).value;
  const nowMs = options.now();
  const keep = (entry: QueueEntry) =>
    entry.claimableAtMs <= nowMs &&
    (!options.supersededOnly || entry.agentVersionId !== miner?.agentVersionId);
  const ids = [
    ...await queued(kv, "asg_available", hotkey, keep),
    ...await queued(kv, "asg_leased", hotkey, keep),
  ];
  return await retireIds(kv, ids, options.now);
}

async function disableMiner(kv: Deno.Kv, hotkey: string): Promise<void> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get<MinerEntry>(minerKey(hotkey));
    if (!entry.value || !entry.value.eligible) return;
    const miner: MinerEntry = { ...entry.value, eligible: false };
    const commit = await commitWrites(kv, (op) => writeMiner(op.check(entry), miner, miner.leasedCount));
    if (commit.ok) return;
  }
  throw new Error(`Cannot retire miner ${hotkey}: its record is too contended`);
}

/** Unleased assignments whose event has ended by `nowMs`, from the global queue indexes. */
async function endedIds(kv: Deno.Kv, nowMs: number): Promise<string[]> {
  const ids: string[] = [];
  for await (const entry of kv.list<QueueEntry>({ prefix: ["asg_open"] })) {
    if (entry.value.eventEndsAtMs > nowMs) break;
    ids.push(entry.value.agentPredictionId);
  }
  for await (const entry of kv.list<QueueEntry>({ prefix: ["asg_expiry"] })) {
    if (entry.value.claimableAtMs > nowMs) break;
    if (entry.value.eventEndsAtMs <= nowMs) ids.push(entry.value.agentPredictionId);
  }
  return ids;
}

export async function retireAssignments(kv: Deno.Kv, scope: RetireScope, now: Clock): Promise<number> {
  let retired = 0;
  for (const hotkey of scope.minerHotkeys ?? []) {
    await disableMiner(kv, hotkey);
    retired += await retireQueued(kv, hotkey, { now });
  }
  for (const eventId of scope.eventIds ?? []) {
    const ids: string[] = [];
    for await (const entry of kv.list({ prefix: ["asg_event", eventId] })) ids.push(entry.key[3] as string);
    retired += await retireIds(kv, ids, now);
  }
  if (scope.ended) retired += await retireIds(kv, await endedIds(kv, now()), now);
  return retired;
}
