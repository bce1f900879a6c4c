/**
 * The metric families of `Metrics` (docs/operations.md lists them).
 *
 * prom-client's default process metrics are not collected: on Deno several of them read as NaN or
 * nonsense (event-loop lag, active handles), so only the resident memory and start time are exported.
 *
 * @module
 */
import type { Registry } from "prom-client";
import { Counter, Gauge, Histogram } from "./_prom_classes.ts";

const FAST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SLOW_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export type MetricFamilies = ReturnType<typeof createMetricFamilies>;

/** The metric families, registered on `registry`. */
export function createMetricFamilies(registry: Registry) {
  const registers = [registry];
  return {
    httpRequests: new Counter({
      name: "fgw_http_requests_total",
      help: "HTTP requests answered, by method, route pattern and status",
      labelNames: ["method", "route", "status"] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: "fgw_http_request_duration_seconds",
      help: "Time to answer an HTTP request, by method and route pattern",
      labelNames: ["method", "route"] as const,
      buckets: FAST_BUCKETS,
      registers,
    }),
    ...actorMetrics(registers),
    ...jobMetrics(registers),
    upstreamDuration: new Histogram({
      name: "fgw_upstream_request_duration_seconds",
      help: "Time of one attempt to an upstream, by upstream and outcome (2xx..5xx, timeout, network)",
      labelNames: ["upstream", "outcome"] as const,
      buckets: SLOW_BUCKETS,
      registers,
    }),
    upstreamErrors: new Counter({
      name: "fgw_upstream_errors_total",
      help: "Failed upstream attempts, by upstream and reason (timeout, network, 429, 5xx)",
      labelNames: ["upstream", "reason"] as const,
      registers,
    }),
    gatewayCharges: new Counter({
      name: "fgw_gateway_charges_total",
      help:
        "Settled gateway calls by provider and basis: usage, or the hold (hold_no_usage, hold_over_bound)",
      labelNames: ["provider", "basis"] as const,
      registers,
    }),
    storageErrors: new Counter({
      name: "fgw_storage_errors_total",
      help: "Storage failures: unhandled errors answered 500 (source=request) and background reads",
      labelNames: ["source"] as const,
      registers,
    }),
    settlementContradictions: new Counter({
      name: "fgw_settlement_contradictions_total",
      help:
        "Settled events a later report contradicted (kept, never re-scored), by who saw it (ingestion, scoring)",
      labelNames: ["seen_by"] as const,
      registers,
    }),
    ...processMetrics(registers),
  };
}

function actorMetrics(registers: Registry[]) {
  return {
    mailboxDepth: new Gauge({
      name: "fgw_actor_mailbox_depth",
      help: "Messages waiting or running in the mailboxes of an actor kind",
      labelNames: ["kind"] as const,
      registers,
    }),
    mailboxMaxDepth: new Gauge({
      name: "fgw_actor_mailbox_max_depth",
      help: "Deepest single mailbox of an actor kind since the instance started",
      labelNames: ["kind"] as const,
      registers,
    }),
    messageDuration: new Histogram({
      name: "fgw_actor_message_duration_seconds",
      help: "Time an actor took to handle a message, by actor kind",
      labelNames: ["kind"] as const,
      buckets: FAST_BUCKETS,
      registers,
    }),
    messageFailures: new Counter({
      name: "fgw_actor_message_failures_total",
      help: "Actor messages whose handling threw, by actor kind",
      labelNames: ["kind"] as const,
      registers,
    }),
    messagesShed: new Counter({
      name: "fgw_actor_messages_shed_total",
      help: "Actor messages refused or dropped without running, by actor kind and reason",
      labelNames: ["kind", "reason"] as const,
      registers,
    }),
  };
}

function jobMetrics(registers: Registry[]) {
  const labelNames = ["job"] as const;
  return {
    jobRuns: new Counter({ name: "fgw_job_runs_total", help: "Periodic job runs", labelNames, registers }),
    jobFailures: new Counter({
      name: "fgw_job_failures_total",
      help: "Periodic job runs that failed",
      labelNames,
      registers,
    }),
    jobDuration: new Histogram({
      name: "fgw_job_duration_seconds",
      help: "Time of a periodic job's run",
      labelNames,
      buckets: SLOW_BUCKETS,
      registers,
    }),
    jobLastSuccess: new Gauge({
      name: "fgw_job_last_success_timestamp_seconds",
      help: "When a periodic job last ran without failing (Unix time)",
      labelNames,
      registers,
    }),
  };
}

function processMetrics(registers: Registry[]) {
  return {
    residentMemory: new Gauge({
      name: "process_resident_memory_bytes",
      help: "Resident memory size in bytes",
      registers,
      collect() {
        this.set(Deno.memoryUsage().rss);
      },
    }),
    startTime: new Gauge({
      name: "process_start_time_seconds",
      help: "Start time of the process since the Unix epoch in seconds",
      registers,
      collect() {
        this.set(Math.round(performance.timeOrigin / 1000));
      },
    }),
  };
}
