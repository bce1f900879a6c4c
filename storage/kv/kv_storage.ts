import { closeOnce, type Storage } from "../storage.ts";
import { KvEventStore } from "./kv_event_store.ts";
import { KvJobLeaseStore } from "./kv_job_lease_store.ts";
import { KvSettingStore } from "./kv_setting_store.ts";
import { KvApiKeyStore } from "./kv_api_key_store.ts";
import { KvRateLimitStore } from "./kv_rate_limit_store.ts";
import { KvOrgStore } from "./kv_org_store.ts";
import { KvBillingStore } from "./kv_billing_store.ts";
import { KvMetagraphStore } from "./kv_metagraph_store.ts";
import { KvAgentStore } from "./kv_agent_store.ts";
import { KvAssignmentStore } from "./kv_assignment_store.ts";
import { KvNonceStore } from "./kv_nonce_store.ts";
import { KvKeyUsageStore } from "./kv_key_usage_store.ts";
import { KvScoreStore } from "./kv_score_store.ts";
import { KvFreshRunStore } from "./kv_fresh_run_store.ts";
import { KvForecastHistoryStore } from "./kv_forecast_history_store.ts";
import { KvMemberStore } from "./kv_member_store.ts";
import { KvSessionStore } from "./kv_session_store.ts";
import { KvAuditStore } from "./kv_audit_store.ts";
import { KvUsageStore } from "./kv_usage_store.ts";
import { backfillUsageSummary } from "./_kv_usage_backfill.ts";

export interface KvStorageOptions {
  /**
   * The storage's clock, for leases, claims and nonces (docs/runtime.md). Default: the host's
   * wall clock; a test that plays a fixed time line passes its own.
   */
  now?: () => number;
}

/** Opens the Deno KV adapter at `path` (a file, or ":memory:"). */
export async function openKvStorage(path: string, options: KvStorageOptions = {}): Promise<Storage> {
  const kv = await Deno.openKv(path);
  await backfillUsageSummary(kv);
  const clock = options.now ? { now: options.now } : {};
  return {
    kind: "kv",
    events: new KvEventStore(kv),
    jobLeases: new KvJobLeaseStore(kv, clock),
    settings: new KvSettingStore(kv),
    apiKeys: new KvApiKeyStore(kv),
    rateLimits: new KvRateLimitStore(kv),
    keyUsage: new KvKeyUsageStore(kv),
    orgs: new KvOrgStore(kv),
    billing: new KvBillingStore(kv),
    metagraph: new KvMetagraphStore(kv),
    agents: new KvAgentStore(kv),
    assignments: new KvAssignmentStore(kv, clock),
    nonces: new KvNonceStore(kv, clock),
    scores: new KvScoreStore(kv),
    freshRuns: new KvFreshRunStore(kv, clock),
    forecastHistory: new KvForecastHistoryStore(kv),
    members: new KvMemberStore(kv),
    sessions: new KvSessionStore(kv),
    audit: new KvAuditStore(kv),
    usage: new KvUsageStore(kv),
    ping: async () => {
      await kv.get(["meta", "ping"]);
    },
    close: closeOnce(() => Promise.resolve(kv.close())),
  };
}
