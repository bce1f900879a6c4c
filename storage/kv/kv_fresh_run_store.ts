import type { FreshRunLimits, FreshRunReservation, FreshRunStore } from "../fresh_run_store.ts";
import { LOST, type Lost, retryConditional } from "../retry_conditional.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { byEventKey, getAll } from "./_assignment_keys.ts";

/** The last fresh run queued for an event (kept: the next one takes the round after it). */
interface LastRun {
  round: number;
  orgId: string;
  queuedAtMs: number;
}

/** An organisation's reservations within the window: `[queuedAtMs, events]`, oldest first. */
type OrgCounts = [number, number][];

/** Deno KV checks at most 100 entries per commit: the organisation's and 99 events'. */
const IDS_PER_COMMIT = 99;
/** Reservations that lost a race (each round lets at least one contender through). */
const MAX_ATTEMPTS = 1_000;
/** Beyond this many counts, the oldest two are merged at the later time (counted longer, never less). */
const MAX_COUNTS = 500;

export interface KvFreshRunStoreOptions {
  /** The storage's clock: the host's wall clock, as for leases (docs/runtime.md). */
  now?: () => number;
}

function lastRunKey(eventId: string): Deno.KvKey {
  return ["fresh_run_event", eventId];
}

function orgCountsKey(orgId: string): Deno.KvKey {
  return ["fresh_run_org", orgId];
}

/**
 * Fresh-run reservations in Deno KV: per chunk of 99 ids, one commit checked against the
 * organisation's counts and the entries of the events it queues (a lost check reads again), so
 * racing handles queue an event once and never take an organisation past its limit.
 */
export class KvFreshRunStore implements FreshRunStore {
  readonly #kv: Deno.Kv;
  readonly #now: () => number;

  constructor(kv: Deno.Kv, options: KvFreshRunStoreOptions = {}) {
    this.#kv = kv;
    this.#now = options.now ?? (() => Date.now());
  }

  async reserve(
    orgId: string,
    eventIds: readonly string[],
    limits: FreshRunLimits,
  ): Promise<Map<string, FreshRunReservation>> {
    const out = new Map<string, FreshRunReservation>();
    const ids = [...new Set(eventIds)];
    for (let start = 0; start < ids.length; start += IDS_PER_COMMIT) {
      const chunk = ids.slice(start, start + IDS_PER_COMMIT);
      const decided = await retryConditional(() => this.#reserveChunk(orgId, chunk, limits), {
        what: `reserve fresh runs of ${orgId}`,
        attempts: MAX_ATTEMPTS,
      });
      for (const [id, reservation] of decided) out.set(id, reservation);
    }
    return out;
  }

  async #reserveChunk(
    orgId: string,
    ids: readonly string[],
    { perOrg, windowMs }: FreshRunLimits,
  ): Promise<Map<string, FreshRunReservation> | Lost> {
    const nowMs = this.#now();
    const sinceMs = nowMs - windowMs;
    const [org, ...lasts] = await getAll<unknown>(this.#kv, [orgCountsKey(orgId), ...ids.map(lastRunKey)]);
    const counts = ((org!.value ?? []) as OrgCounts).filter(([atMs]) => atMs > sinceMs);
    let used = counts.reduce((sum, [, events]) => sum + events, 0);
    const decided = new Map<string, FreshRunReservation>();
    const queued: { index: number; round: number }[] = [];
    for (const [index, id] of ids.entries()) {
      const last = lasts[index]!.value as LastRun | null;
      if (last && last.queuedAtMs > sinceMs) {
        decided.set(id, { status: "already_queued", round: last.round });
      } else if (used >= perOrg) {
        decided.set(id, { status: "org_limit" });
      } else {
        const round = 1 + Math.max(last?.round ?? 0, await this.#latestAssignmentRound(id));
        decided.set(id, { status: "queued", round });
        queued.push({ index, round });
        used++;
      }
    }
    if (queued.length === 0) return decided;
    const result = await commitAtomic(() => {
      const op = this.#kv.atomic().check(org!);
      for (const { index, round } of queued) {
        const id = ids[index]!;
        op.check(lasts[index]!).set(lastRunKey(id), { round, orgId, queuedAtMs: nowMs } satisfies LastRun);
      }
      return op.set(orgCountsKey(orgId), withQueued(counts, nowMs, queued.length), { expireIn: windowMs });
    });
    return result.ok ? decided : LOST;
  }

  /** The highest round of the event's assignments, 0 without any. */
  async #latestAssignmentRound(eventId: string): Promise<number> {
    const prefix = byEventKey(eventId, 0, "").slice(0, 2);
    for await (const entry of this.#kv.list({ prefix }, { reverse: true, limit: 1 })) {
      return entry.key[2] as number;
    }
    return 0;
  }
}

/** `counts` with `events` more at `nowMs`, bounded by merging the oldest into the next. */
function withQueued(counts: OrgCounts, nowMs: number, events: number): OrgCounts {
  const next: OrgCounts = [...counts, [nowMs, events]];
  while (next.length > MAX_COUNTS) {
    const [first, second] = next.splice(0, 2) as [[number, number], [number, number]];
    next.unshift([second[0], first[1] + second[1]]);
  }
  return next;
}
