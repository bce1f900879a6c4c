import postgres from "postgres";
import { closeOnce, type Storage } from "../storage.ts";
import { migrate } from "./migrate.ts";
import { PgEventStore } from "./pg_event_store.ts";
import { PgJobLeaseStore } from "./pg_job_lease_store.ts";
import { PgSettingStore } from "./pg_setting_store.ts";
import { PgApiKeyStore } from "./pg_api_key_store.ts";
import { PgRateLimitStore } from "./pg_rate_limit_store.ts";
import { PgOrgStore } from "./pg_org_store.ts";
import { PgBillingStore } from "./pg_billing_store.ts";
import { PgMetagraphStore } from "./pg_metagraph_store.ts";
import { PgAgentStore } from "./pg_agent_store.ts";
import { PgAssignmentStore } from "./pg_assignment_store.ts";
import { PgNonceStore } from "./pg_nonce_store.ts";
import { PgKeyUsageStore } from "./pg_key_usage_store.ts";
import { PgScoreStore } from "./pg_score_store.ts";
import { PgFreshRunStore } from "./pg_fresh_run_store.ts";
import { PgForecastHistoryStore } from "./pg_forecast_history_store.ts";
import { PgMemberStore } from "./pg_member_store.ts";
import { PgSessionStore } from "./pg_session_store.ts";
import { PgAuditStore } from "./pg_audit_store.ts";
import { PgUsageStore } from "./pg_usage_store.ts";

export interface PgStorageOptions {
  /** Connection pool size. */
  maxConnections?: number;
  /** Told the text of every statement sent (tests count statements with it). */
  onStatement?: (text: string) => void;
  /**
   * Sends even a lone billing commit or key count through the grouped statement (the tests of
   * those statements use it). By default a group of one takes the per-item statement: it does the
   * same in about half the time.
   */
  groupLoneItems?: boolean;
}

/** Connects to PostgreSQL at `url`, applies pending migrations, and returns the adapter. */
export async function openPgStorage(url: string, options: PgStorageOptions = {}): Promise<Storage> {
  const max = options.maxConnections ?? 10;
  const common = {
    onnotice: () => {},
    types: { bigint: postgres.BigInt },
    ...(options.onStatement
      ? { debug: (_connection: number, text: string) => options.onStatement!(text) }
      : {}),
  };
  const sql = postgres(url, { ...common, max });
  // Commits that only release holds do not wait for the flush (PgBillingStore).
  const holdSql = postgres(url, {
    ...common,
    max: Math.max(2, Math.ceil(max / 4)),
    connection: { synchronous_commit: "off" },
  });
  await migrate(sql);
  return {
    kind: "postgres",
    events: new PgEventStore(sql),
    jobLeases: new PgJobLeaseStore(sql),
    settings: new PgSettingStore(sql),
    apiKeys: new PgApiKeyStore(sql),
    rateLimits: new PgRateLimitStore(sql),
    keyUsage: new PgKeyUsageStore(sql, { groupLoneItems: options.groupLoneItems ?? false }),
    orgs: new PgOrgStore(sql),
    billing: new PgBillingStore(sql, { holdSql, groupLoneItems: options.groupLoneItems ?? false }),
    metagraph: new PgMetagraphStore(sql),
    agents: new PgAgentStore(sql),
    assignments: new PgAssignmentStore(sql),
    nonces: new PgNonceStore(sql),
    scores: new PgScoreStore(sql),
    freshRuns: new PgFreshRunStore(sql),
    forecastHistory: new PgForecastHistoryStore(sql),
    members: new PgMemberStore(sql),
    sessions: new PgSessionStore(sql),
    audit: new PgAuditStore(sql),
    usage: new PgUsageStore(sql),
    ping: async () => {
      await sql`SELECT 1`;
    },
    close: closeOnce(async () => {
      await Promise.all([sql.end({ timeout: 5 }), holdSql.end({ timeout: 5 })]);
    }),
  };
}
