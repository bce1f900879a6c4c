import type { Sql } from "postgres";
import type {
  AuditAction,
  AuditActor,
  AuditEntry,
  AuditPosition,
  AuditStore,
  AuditValue,
} from "../audit_store.ts";
import { insertAudit } from "./_pg_identity_rows.ts";

interface AuditRow {
  org_id: string;
  at_ms: bigint;
  id: string;
  by_kind: "operator" | "member";
  by_member_id: string | null;
  action: AuditAction;
  subject: string;
  details: Record<string, AuditValue>;
}

function toEntry(row: AuditRow): AuditEntry {
  const by: AuditActor = row.by_kind === "member"
    ? { kind: "member", memberId: row.by_member_id ?? "" }
    : { kind: "operator" };
  return {
    id: row.id,
    orgId: row.org_id,
    atMs: Number(row.at_ms),
    by,
    action: row.action,
    subject: row.subject,
    details: row.details,
  };
}

/** The audit log in PostgreSQL, keyset-paged on its primary key (org, time, id) backwards. */
export class PgAuditStore implements AuditStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async append(entry: AuditEntry): Promise<void> {
    await insertAudit(this.#sql, entry);
  }

  async list(orgId: string, page: { limit: number; before?: AuditPosition }): Promise<AuditEntry[]> {
    const { before } = page;
    const rows = before
      ? await this.#sql<AuditRow[]>`
        SELECT * FROM audit_log WHERE org_id = ${orgId} AND (at_ms, id) < (${before.atMs}, ${before.id})
        ORDER BY at_ms DESC, id DESC LIMIT ${page.limit}`
      : await this.#sql<AuditRow[]>`
        SELECT * FROM audit_log WHERE org_id = ${orgId} ORDER BY at_ms DESC, id DESC LIMIT ${page.limit}`;
    return rows.map(toEntry);
  }
}
