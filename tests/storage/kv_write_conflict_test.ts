import assert from "node:assert/strict";
import { KvBillingStore } from "../../storage/kv/kv_billing_store.ts";
import { KvOrgStore } from "../../storage/kv/kv_org_store.ts";
import { KvRateLimitStore } from "../../storage/kv/kv_rate_limit_store.ts";
import { WriteConflictError } from "../../storage/retry_conditional.ts";

const HOTKEY = "5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi";

/**
 * `op` with every chained call kept on the wrapper, and a commit before which "another writer"
 * rewrites each stored entry the operation checks (so its versionstamp check is lost, for real).
 */
function contendedOperation(kv: Deno.Kv, op: Deno.AtomicOperation): Deno.AtomicOperation {
  const checked: Deno.KvKey[] = [];
  const wrapper: Deno.AtomicOperation = new Proxy(op, {
    get(target, property) {
      if (property === "commit") {
        return async () => {
          for (const key of checked) {
            const entry = await kv.get(key);
            if (entry.versionstamp !== null) await kv.set(key, entry.value);
          }
          return await target.commit();
        };
      }
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (property === "check") checked.push(...(args as Deno.AtomicCheck[]).map((check) => check.key));
        const result = value.apply(target, args);
        return result === target ? wrapper : result;
      };
    },
  });
  return wrapper;
}

/** `kv` whose every atomic commit loses its checks to another writer. */
function contended(kv: Deno.Kv): Deno.Kv {
  return new Proxy(kv, {
    get(target, property) {
      if (property === "atomic") return () => contendedOperation(target, target.atomic());
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

Deno.test("KV writes that lose every race give up with a WriteConflictError (409), not a plain Error", async (t) => {
  using kv = await Deno.openKv(":memory:");
  const orgs = new KvOrgStore(kv);
  await orgs.create({ id: "org_a", name: "A", createdAtMs: 0 });
  await new KvRateLimitStore(kv).hit("ip:1", { windowStartMs: 0, windowMs: 60_000 });

  await t.step("an account commit", async () => {
    const billing = new KvBillingStore(contended(kv));
    const credit = { atMs: 1, entry: { kind: "credit" as const, amountMicro: 5n, reference: "r1" } };
    await assert.rejects(billing.commit("org_a", credit), WriteConflictError);
    assert.equal((await new KvBillingStore(kv).getAccount("org_a"))?.balanceMicro, 0n);
  });
  await t.step("a miner registration", async () => {
    const contendedOrgs = new KvOrgStore(contended(kv));
    await assert.rejects(
      contendedOrgs.registerMiner("org_a", HOTKEY, { atMs: 1, makeDefault: true }),
      WriteConflictError,
    );
    assert.deepEqual(await orgs.listMiners("org_a"), []);
  });
  await t.step("a rate-limit hit", async () => {
    const limits = new KvRateLimitStore(contended(kv));
    await assert.rejects(limits.hit("ip:1", { windowStartMs: 0, windowMs: 60_000 }), WriteConflictError);
  });
});
