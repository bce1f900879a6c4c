/**
 * The suite's parts: `deno task test` runs tests/suite/part_1.ts … part_4.ts side by side, one
 * worker each, and each part imports its share of the test files, found when the suite starts. A
 * worker loads the service's modules once for its whole part instead of once per test file: loaded
 * per file, that loading was about 40 % of the suite's CPU time (docs/testing.md). Adding, moving
 * or removing a test file needs no other step.
 */

export const PARTS = 4;

/**
 * Seconds each file of half a second or more took in a whole run of `.ci/run`'s test command on a
 * PostgreSQL server (the per-test times of its JUnit report, 2026-11-24, summed per file; the
 * parts running side by side slow each other, so these are longer than a file alone). Only used to
 * balance the parts; the other files take a fraction of a second each.
 */
const SLOW_FILES: Record<string, number> = {
  // Measured alone (2026-12-02, a loaded host): the whole demo, its validator and agent runs.
  "scripts/demo/demo_e2e_test.ts": 41.0,
  "validators/lease_race_test.ts": 30.2,
  // Measured alone (2026-12-01, a loaded host): the escape suite's validator processes and runs.
  "scripts/validate/sandbox/escape_suite_test.ts": 21.0,
  "scripts/validate/validate_cli_test.ts": 18.0,
  // Measured alone (2026-12-02, a loaded host): Chromium's pages, and two builds of the populated data set.
  "browser/public_pages_test.ts": 9.0,
  "browser/browser_harness_test.ts": 7.0,
  "browser/populated_world_test.ts": 6.0,
  // Measured alone (2026-12-02, a loaded host): the dating test starts a PGlite of its own.
  "storage/spend_counter_purge_contract_test.ts": 5.0,
  "storage/spend_counter_dating_test.ts": 4.0,
  "billing/spend_counter_purge_job_test.ts": 1.5,
  "browser/passkey_ceremony_test.ts": 7.0,
  "browser/dashboard_journey_test.ts": 6.0,
  "browser/dashboard_usage_test.ts": 8.0,
  "browser/dashboard_miners_test.ts": 10.0,
  "storage/assignment_store_race_contract_test.ts": 22.6,
  "storage/billing_store_contract_test.ts": 7.6,
  "keys/api_key_instances_test.ts": 7.0,
  "scripts/service/start_test.ts": 6.9,
  "catalog/offline_fallback_test.ts": 5.2,
  "gateway/validator_cap_race_test.ts": 5.1,
  "scoring/leaderboard_test.ts": 5.0,
  "catalog/ingestion_job_test.ts": 4.5,
  "runtime/scheduler_fencing_test.ts": 4.4,
  "scoring/scored_events_test.ts": 3.7,
  "scoring/scoring_job_runs_test.ts": 3.6,
  "storage/forecast_history_store_contract_test.ts": 3.5,
  "scripts/validate/sandbox/sandboxed_run_test.ts": 3.5,
  "predictions/prediction_access_test.ts": 3.4,
  "storage/assignment_store_contract_test.ts": 3.4,
  "gateway/completions_race_test.ts": 2.7,
  "gateway/upstream_outcomes_test.ts": 2.7,
  "scoring/score_from_service_e2e_test.ts": 2.7,
  "predictions/prediction_routes_test.ts": 2.5,
  "predictions/prediction_snapshot_job_test.ts": 2.3,
  "billing/org_actor_race_test.ts": 2.1,
  "scoring/scored_predictions_route_test.ts": 2.0,
  "scoring/scored_predictions_feed_test.ts": 1.8,
  "storage/fresh_run_store_contract_test.ts": 1.8,
  "storage/job_lease_store_contract_test.ts": 1.8,
  "validators/nonce_with_change_test.ts": 1.8,
  "billing/hold_expiry_job_test.ts": 1.7,
  "storage/kv_write_conflict_test.ts": 1.7,
  "predictions/fresh_run_desk_test.ts": 1.6,
  "storage/event_store_contract_test.ts": 1.6,
  "predictions/prediction_freshness_test.ts": 1.5,
  "storage/score_store_contract_test.ts": 1.5,
  "http/openapi_test.ts": 1.2,
  "storage/metagraph_store_contract_test.ts": 1.2,
  "gateway/killed_call_test.ts": 1.1,
  "http/error_handler_test.ts": 1.1,
  "scoring/scoring_job_test.ts": 1.1,
  "scripts/service/gateway_wiring_test.ts": 1.1,
  "scripts/score/score_cli_test.ts": 1.1,
  "storage/agent_store_contract_test.ts": 1.1,
  "agents/submit_agent_signature_test.ts": 1.0,
  "billing/org_actor_batch_test.ts": 1.0,
  "predictions/prediction_loop_e2e_test.ts": 1.0,
  "agents/upload_race_test.ts": 0.9,
  "billing/org_actor_test.ts": 0.9,
  "http/json_bodies_test.ts": 0.9,
  "storage/signed_use_contract_test.ts": 0.9,
  "agents/miner_actor_test.ts": 0.8,
  "agents/submit_agent_key_test.ts": 0.8,
  "predictions/fresh_run_lease_test.ts": 0.8,
  "runtime/scheduler_test.ts": 0.7,
  "scripts/service/prices_wiring_test.ts": 0.7,
  "storage/assignment_scoring_reads_contract_test.ts": 0.7,
  "storage/key_usage_store_contract_test.ts": 0.7,
  "storage/scoring_migration_test.ts": 0.7,
  "validators/signature_auth_test.ts": 0.7,
  "validators/subtensor_metagraph_source_test.ts": 0.7,
  "gateway/completion_desk_failures_test.ts": 0.6,
  "http/free_text_test.ts": 0.6,
  "http/metrics_test.ts": 0.6,
  "kernel/ss58_test.ts": 0.6,
  "storage/nonce_store_contract_test.ts": 0.6,
  "validators/assignment_sync_job_test.ts": 0.6,
  "billing/org_actor_holds_test.ts": 0.5,
  "billing/org_actor_must_complete_test.ts": 0.5,
  "catalog/event_actor_test.ts": 0.5,
};

/**
 * Splits test files (paths relative to tests/) into `PARTS` lists: the slow files first, slowest
 * first, each to the part with the least time so far; every other file to the part its path's
 * hash names, so that adding or removing one file changes one line of one part. Lists sorted.
 */
export function planParts(files: readonly string[]): string[][] {
  const parts = Array.from({ length: PARTS }, () => ({ files: [] as string[], seconds: 0 }));
  const slow = files.filter((file) => file in SLOW_FILES);
  for (const file of slow.toSorted((a, b) => SLOW_FILES[b]! - SLOW_FILES[a]! || a.localeCompare(b))) {
    const lightest = parts.reduce((best, part) => part.seconds < best.seconds ? part : best);
    lightest.files.push(file);
    lightest.seconds += SLOW_FILES[file]!;
  }
  for (const file of files.filter((file) => !(file in SLOW_FILES))) {
    parts[fnv1a(file) % PARTS]!.files.push(file);
  }
  return parts.map((part) => part.files.toSorted());
}

/** 32-bit FNV-1a of `text`'s UTF-16 code units: a stable hash, the same on every machine. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/** Every `*_test.ts` and `*_test.tsx` under `testsDir`, relative to it, sorted. */
export async function listTestFiles(testsDir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, prefix: string) => {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) await walk(`${dir}/${entry.name}`, `${prefix}${entry.name}/`);
      else if (entry.isFile && /_test\.tsx?$/.test(entry.name)) found.push(`${prefix}${entry.name}`);
    }
  };
  await walk(testsDir, "");
  return found.toSorted();
}

/** Imports part `index`'s (0-based) share of every `*_test.ts` under tests/. */
export async function importPart(index: number): Promise<void> {
  const testsDir = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const files = planParts(await listTestFiles(testsDir))[index] ?? [];
  for (const file of files) await import(`../${file}`);
}
