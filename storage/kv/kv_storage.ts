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

/** Opens the Deno KV adapter at `path` (a file, or ":memory:"). */
export async function openKvStorage(path: string): Promise<Storage> {
  const kv = await Deno.openKv(path);
  return {
    kind: "kv",
    events: new KvEventStore(kv),
    jobLeases: new KvJobLeaseStore(kv),
    settings: new KvSettingStore(kv),
    apiKeys: new KvApiKeyStore(kv),
    rateLimits: new KvRateLimitStore(kv),
    keyUsage: new KvKeyUsageStore(kv),
    orgs: new KvOrgStore(kv),
    billing: new KvBillingStore(kv),
    metagraph: new KvMetagraphStore(kv),
    agents: new KvAgentStore(kv),
    assignments: new KvAssignmentStore(kv),
    nonces: new KvNonceStore(kv),
    scores: new KvScoreStore(kv),
    freshRuns: new KvFreshRunStore(kv),
    forecastHistory: new KvForecastHistoryStore(kv),
    ping: async () => {
      await kv.get(["meta", "ping"]);
    },
    close: closeOnce(() => Promise.resolve(kv.close())),
  };
}
