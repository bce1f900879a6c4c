/**
 * Puts the usage records stored before the usage summary existed into it, once per store (private
 * to storage/kv). Each org's summary is recomputed from its records and written as absolute
 * values, in atomics checked against the org's account: every usage record is written with an
 * account change, so a check that holds means no record came in since the read; one that fails
 * starts the org again. A settle that lands between two of an org's atomics adds to both halves,
 * and the org's next attempt overwrites them all from a read that includes it.
 */
import type { UsageRecord } from "../billing_store.ts";
import { orgKeys } from "./_org_keys.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { usageKeys, writeUsageSummary } from "./_usage_keys.ts";
import { LOST, retryConditional } from "../retry_conditional.ts";

/** Writes per atomic (Deno KV takes at most 1,000 mutations in one). */
const CHUNK = 500;
const MAX_ATTEMPTS = 100;

/** Backfills every org's usage summary unless that was done before (the `backfilled` marker). */
export async function backfillUsageSummary(kv: Deno.Kv): Promise<void> {
  if ((await kv.get(usageKeys.backfilled)).value !== null) return;
  for await (const entry of kv.list({ prefix: ["org_account"] })) {
    await backfillOrg(kv, String(entry.key[1]));
  }
  await kv.set(usageKeys.backfilled, Date.now());
}

function backfillOrg(kv: Deno.Kv, orgId: string): Promise<void> {
  return retryConditional(async () => {
    const account = await kv.get(orgKeys.account(orgId));
    const writes = new Map<string, { key: Deno.KvKey; value: unknown }>();
    const summary = {
      set: (key: Deno.KvKey, value: unknown) => writes.set(JSON.stringify(key), { key, value }),
      sum: (key: Deno.KvKey, value: bigint) => {
        const id = JSON.stringify(key);
        const before = (writes.get(id)?.value as Deno.KvU64 | undefined)?.value ?? 0n;
        writes.set(id, { key, value: new Deno.KvU64(before + value) });
      },
    };
    for await (const { value } of kv.list<UsageRecord>({ prefix: orgKeys.usages(orgId) })) {
      writeUsageSummary(summary, orgId, value);
    }
    const all = [...writes.values()];
    for (let i = 0; i < all.length; i += CHUNK) {
      const result = await commitAtomic(() => {
        const op = kv.atomic().check(account);
        for (const { key, value } of all.slice(i, i + CHUNK)) op.set(key, value);
        return op;
      });
      if (!result.ok) return LOST;
    }
  }, { what: `backfill the usage summary of ${orgId}`, attempts: MAX_ATTEMPTS });
}
