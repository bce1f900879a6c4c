import type { AuditEntry, AuditPosition, AuditStore } from "../audit_store.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { identityKeys as keys } from "./_identity_keys.ts";
import { putAudit } from "./_kv_identity_writes.ts";

/** The audit log in Deno KV under `["audit", orgId, atMs, id]`, listed in reverse key order. */
export class KvAuditStore implements AuditStore {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async append(entry: AuditEntry): Promise<void> {
    await commitAtomic(() => {
      const op = this.#kv.atomic();
      putAudit(op, entry);
      return op;
    });
  }

  async list(orgId: string, page: { limit: number; before?: AuditPosition }): Promise<AuditEntry[]> {
    const prefix = keys.audits(orgId);
    const selector = page.before
      ? { prefix, end: keys.audit(orgId, page.before.atMs, page.before.id) }
      : { prefix };
    const out: AuditEntry[] = [];
    for await (const entry of this.#kv.list<AuditEntry>(selector, { reverse: true, limit: page.limit })) {
      out.push(entry.value);
    }
    return out;
  }
}
