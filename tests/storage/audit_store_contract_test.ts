import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";
import type { AuditEntry } from "../../storage/audit_store.ts";

const AT = Date.UTC(2026, 0, 1);

function entry(orgId: string, atMs: number, id: string): AuditEntry {
  return {
    id,
    orgId,
    atMs,
    by: { kind: "member", memberId: "mbr_1" },
    action: "member.role_changed",
    subject: "mbr_2",
    details: { role: "owner", before: "viewer", count: 2, flag: true, none: null },
  };
}

adapterTest(
  "audit store lists an org's entries newest first, a keyset page at a time",
  async ({ storage }) => {
    await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: AT });
    await storage.orgs.create({ id: "org_b", name: "B", createdAtMs: AT });
    const entries = [
      entry("org_a", AT + 2, "0b"),
      entry("org_a", AT, "ff"),
      entry("org_a", AT + 2, "0a"),
      entry("org_a", AT + 1, "00"),
      { ...entry("org_a", AT + 3, "0c"), by: { kind: "operator" as const } },
    ];
    for (const item of [...entries, entry("org_b", AT + 9, "aa")]) await storage.audit.append(item);

    const first = await storage.audit.list("org_a", { limit: 2 });
    assert.deepEqual(first, [entries[4], entries[0]]);
    const last = first.at(-1)!;
    const second = await storage.audit.list("org_a", { limit: 2, before: { atMs: last.atMs, id: last.id } });
    assert.deepEqual(second, [entries[2], entries[3]]);
    const third = await storage.audit.list("org_a", { limit: 2, before: { atMs: AT + 1, id: "00" } });
    assert.deepEqual(third, [entries[1]]);
    assert.deepEqual(await storage.audit.list("org_a", { limit: 2, before: { atMs: AT, id: "ff" } }), []);
    assert.deepEqual((await storage.audit.list("org_b", { limit: 10 })).map((e) => e.id), ["aa"]);
    assert.deepEqual(await storage.audit.list("org_c", { limit: 10 }), []);
  },
);
