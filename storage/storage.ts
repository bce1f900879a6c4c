import type { AgentStore } from "./agent_store.ts";
import type { ApiKeyStore } from "./api_key_store.ts";
import type { AssignmentStore } from "./assignment_store.ts";
import type { BillingStore } from "./billing_store.ts";
import type { EventStore } from "./event_store.ts";
import type { FreshRunStore } from "./fresh_run_store.ts";
import type { ForecastHistoryStore } from "./forecast_history_store.ts";
import type { JobLeaseStore } from "./job_lease_store.ts";
import type { MetagraphStore } from "./metagraph_store.ts";
import type { NonceStore } from "./nonce_store.ts";
import type { KeyUsageStore } from "./key_usage_store.ts";
import type { OrgStore } from "./org_store.ts";
import type { RateLimitStore } from "./rate_limit_store.ts";
import type { ScoreStore } from "./score_store.ts";
import type { SettingStore } from "./setting_store.ts";
import type { MemberStore } from "./member_store.ts";
import type { SessionStore } from "./session_store.ts";
import type { AuditStore } from "./audit_store.ts";
import type { UsageStore } from "./usage_store.ts";

/** Every storage port, as one adapter provides them. */
export interface Storage {
  readonly kind: "kv" | "postgres";
  readonly events: EventStore;
  readonly jobLeases: JobLeaseStore;
  readonly settings: SettingStore;
  readonly apiKeys: ApiKeyStore;
  readonly rateLimits: RateLimitStore;
  /** Counts API-key uses (the authentication step); reads accounts, writes key windows and last use. */
  readonly keyUsage: KeyUsageStore;
  readonly orgs: OrgStore;
  readonly billing: BillingStore;
  readonly metagraph: MetagraphStore;
  readonly agents: AgentStore;
  readonly assignments: AssignmentStore;
  readonly nonces: NonceStore;
  readonly scores: ScoreStore;
  /** Customers' fresh-run reservations (docs/predictions.md "Fresh runs"). */
  readonly freshRuns: FreshRunStore;
  /** The customer forecast history (points of the prediction snapshot job). */
  readonly forecastHistory: ForecastHistoryStore;
  /** Dashboard members, invitations and passkeys (docs/dashboard.md). */
  readonly members: MemberStore;
  /** Dashboard sessions and sign-in challenges, shared by every instance. */
  readonly sessions: SessionStore;
  /** Each organisation's audit log. */
  readonly audit: AuditStore;
  /** The usage view's reads: the summary the billing store writes with each usage record. */
  readonly usage: UsageStore;
  /** Throws when the storage cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Wraps an adapter's `close` so it may be called more than once (service shutdown, then its owner). */
export function closeOnce(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => closing ??= close();
}
