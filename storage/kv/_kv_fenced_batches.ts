import type { Fence } from "../job_lease_store.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { currentFence } from "./_job_lease_keys.ts";

/** One change: `value` undefined deletes the key. */
export interface KvMutation {
  key: Deno.KvKey;
  value?: unknown;
}

/** Mutations per atomic operation, and their approximate bytes: well under Deno KV's limits per commit. */
const MUTATIONS_PER_COMMIT = 100;
const BYTES_PER_COMMIT = 400_000;
/** Times a batch re-reads the lease after its commit lost a race (a renewal changes the entry). */
const MAX_ATTEMPTS = 5;

/**
 * Applies `mutations` in order, in atomic batches that each check the lease entry of `fence`:
 * false (and the batches after it unwritten) as soon as the token is no longer the job's current
 * grant (with nothing to write: whether the token is current). Each batch is atomic, the whole list is not: a caller orders its mutations so that the
 * one that makes a change visible comes last.
 */
export async function commitFenced(
  kv: Deno.Kv,
  fence: Fence,
  mutations: readonly KvMutation[],
): Promise<boolean> {
  if (mutations.length === 0) return await currentFence(kv, fence) !== null;
  for (const batch of batches(mutations)) {
    if (!await commitBatch(kv, fence, batch)) return false;
  }
  return true;
}

/** Consecutive runs of at most `MUTATIONS_PER_COMMIT` mutations and about `BYTES_PER_COMMIT` bytes. */
function batches(mutations: readonly KvMutation[]): KvMutation[][] {
  const all: KvMutation[][] = [];
  let batch: KvMutation[] = [];
  let bytes = 0;
  for (const mutation of mutations) {
    const size = JSON.stringify(mutation.key).length + (JSON.stringify(mutation.value)?.length ?? 0);
    if (batch.length === MUTATIONS_PER_COMMIT || (batch.length > 0 && bytes + size > BYTES_PER_COMMIT)) {
      all.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(mutation);
    bytes += size;
  }
  if (batch.length > 0) all.push(batch);
  return all;
}

async function commitBatch(kv: Deno.Kv, fence: Fence, batch: readonly KvMutation[]): Promise<boolean> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const lease = await currentFence(kv, fence);
    if (!lease) return false;
    const result = await commitAtomic(() =>
      batch.reduce(
        (op, { key, value }) => value === undefined ? op.delete(key) : op.set(key, value),
        kv.atomic().check(lease),
      )
    );
    if (result.ok) return true;
  }
  throw new Error(`Cannot write fenced batch: the lease of ${fence.job} kept changing`);
}
