import type { Assignment } from "../assignment_record.ts";
import type { DailyQuery, DayUsage, LeaseCalls, LeaseState, UsageStore } from "../usage_store.ts";
import { assignmentKey } from "./_assignment_keys.ts";
import { type BucketPart, type LeaseCallEntry, usageKeys } from "./_usage_keys.ts";

/** Deno KV reads at most this many keys per `getMany`. */
const GET_MANY_LIMIT = 10;
/** Entries per round trip of a list (KV's most). */
const LIST_BATCH = 1_000;

/**
 * The usage view's reads in Deno KV: a range of a dimension's buckets (`["usage_bucket", org,
 * dimension, quarter, value, part]`, KvU64 sums written with each usage record), folded into days;
 * the lease calls of a time range (`["usage_lease_call", org, atMs, seq]`) with their assignments.
 */
export class KvUsageStore implements UsageStore {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async daily(orgId: string, query: DailyQuery): Promise<DayUsage[]> {
    const { dimension, dayStarts } = query;
    if (dayStarts.length < 2) return [];
    const sums = new Map<string, DayUsage>();
    const entries = this.#kv.list<Deno.KvU64>({
      start: usageKeys.bucketsFrom(orgId, dimension, dayStarts[0]!),
      end: usageKeys.bucketsFrom(orgId, dimension, dayStarts.at(-1)!),
    }, { batchSize: LIST_BATCH });
    let day = 0;
    for await (const entry of entries) {
      const [, , , quarter, value, part] = entry.key as [string, string, string, number, string, BucketPart];
      while (quarter >= dayStarts[day + 1]!) day++;
      const id = `${day}\u0000${value}`;
      let sum = sums.get(id);
      if (!sum) sums.set(id, sum = { day, value, spendMicro: 0n, calls: 0 });
      if (part === "spend") sum.spendMicro += entry.value.value;
      else sum.calls += Number(entry.value.value);
    }
    return [...sums.values()];
  }

  async leaseCalls(orgId: string, range: { fromMs: number; toMs: number }): Promise<LeaseCalls[]> {
    const sums = new Map<string, Omit<LeaseCalls, "lease">>();
    const entries = this.#kv.list<LeaseCallEntry>({
      start: usageKeys.leaseCallsFrom(orgId, range.fromMs),
      end: usageKeys.leaseCallsFrom(orgId, range.toMs),
    }, { batchSize: LIST_BATCH });
    for await (const { value: call } of entries) {
      const id = JSON.stringify([
        call.minerHotkey,
        call.validatorHotkey,
        call.agentPredictionId,
        call.leasedAtMs,
      ]);
      let sum = sums.get(id);
      if (!sum) {
        const { amountMicro: _amount, ...claim } = call;
        sums.set(id, sum = { ...claim, calls: 0, spendMicro: 0n });
      }
      sum.calls++;
      sum.spendMicro += call.amountMicro;
    }
    const leases = await this.#leases([...new Set([...sums.values()].map((sum) => sum.agentPredictionId))]);
    return [...sums.values()].map((sum) => ({ ...sum, lease: leases.get(sum.agentPredictionId) ?? null }));
  }

  /** The current state of each stored lease among `ids`. */
  async #leases(ids: string[]): Promise<Map<string, LeaseState>> {
    const chunks: string[][] = [];
    for (let i = 0; i < ids.length; i += GET_MANY_LIMIT) chunks.push(ids.slice(i, i + GET_MANY_LIMIT));
    const read = await Promise.all(
      chunks.map((chunk) => this.#kv.getMany<Assignment[]>(chunk.map(assignmentKey))),
    );
    const states = new Map<string, LeaseState>();
    for (const { value } of read.flat()) if (value) states.set(value.agentPredictionId, leaseStateOf(value));
    return states;
  }
}

/** What the usage view needs of an assignment: its status and its current or last claim. */
export function leaseStateOf(assignment: Assignment): LeaseState {
  const { lease } = assignment;
  return {
    status: assignment.status,
    validatorHotkey: lease?.validatorHotkey ?? null,
    leasedAtMs: lease?.leasedAtMs ?? null,
    expiresAtMs: lease?.expiresAtMs ?? null,
  };
}
