/**
 * The service's Prometheus metrics (docs/operations.md lists every name and label). One `Metrics`
 * per service instance, with its own registry: two instances in one process never share series.
 *
 * Hot paths (a request, an actor message) reuse the labelled child of their series instead of
 * asking prom-client to hash the label values again.
 */
import type { Counter, Gauge, Histogram } from "prom-client";
import { Registry } from "./_prom_classes.ts";
import { createMetricFamilies, type MetricFamilies } from "./_metric_families.ts";
import type { Clock } from "./clock.ts";
import type { AttemptOutcome, UpstreamObserver } from "./http_client.ts";

/** Told about each actor message (the actor system's observer). */
export interface ActorObserver {
  /** A message entered a mailbox of `kind`; `depth` counts that mailbox's messages, this one included. */
  onEnqueue(kind: string, depth: number): void;
  /** A message that entered a mailbox has run for `ms`; `failed` when it threw. */
  onDone(kind: string, ms: number, failed: boolean): void;
  /**
   * A message did not run. `full`: refused by a full mailbox, so it never entered; any other
   * reason (e.g. `expired`, its caller gave up): it had entered and leaves with no `onDone`.
   */
  onShed(kind: string, reason: string): void;
}

/** How a periodic job's run ended (the scheduler's `onRun`). */
export type JobOutcome = "ok" | "failed";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The label value of requests that matched no route: one series, whatever the URL. */
export const UNMATCHED_ROUTE = "unmatched";

interface HttpSeries {
  requests: Counter.Internal;
  duration: Histogram.Internal<"method" | "route">;
}

interface KindSeries {
  pending: Gauge.Internal<"kind">;
  deepest: Gauge.Internal<"kind">;
  deepestSeen: number;
  duration: Histogram.Internal<"kind">;
  failures: Counter.Internal;
}

/** Every metric of one service instance, and the observers that feed them. */
export class Metrics {
  readonly registry = new Registry();
  /** Feeds the actor metrics; pass it as the actor system's observer. */
  readonly actors: ActorObserver;
  /** Feeds the upstream metrics; pass it to every `HttpClient`. */
  readonly upstreams: UpstreamObserver;
  readonly #clock: Clock;
  readonly #http = new Map<string, HttpSeries>();
  readonly #kinds = new Map<string, KindSeries>();
  readonly #metric: MetricFamilies;

  constructor(options: { clock: Clock }) {
    this.#clock = options.clock;
    this.#metric = createMetricFamilies(this.registry);
    this.actors = {
      onEnqueue: (kind, depth) => this.#actorEnqueued(kind, depth),
      onDone: (kind, ms, failed) => this.#actorDone(kind, ms, failed),
      onShed: (kind, reason) => this.#actorShed(kind, reason),
    };
    this.upstreams = { onAttempt: (upstream, ms, outcome) => this.#upstreamAttempt(upstream, ms, outcome) };
  }

  /** The `Content-Type` of `render()`'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every series in the Prometheus text format. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** One HTTP request answered: `route` is the matched route pattern, or `UNMATCHED_ROUTE`. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const knownMethod = METHODS.has(method) ? method : "OTHER";
    const key = `${knownMethod} ${status} ${route}`;
    let series = this.#http.get(key);
    if (series === undefined) {
      series = {
        requests: this.#metric.httpRequests.labels(knownMethod, route, String(status)),
        duration: this.#metric.httpDuration.labels(knownMethod, route),
      };
      this.#http.set(key, series);
    }
    series.requests.inc();
    series.duration.observe(seconds);
  }

  /** A periodic job's run ended after `ms` (the scheduler's `onRun`). */
  jobRan(job: string, outcome: JobOutcome, ms: number): void {
    this.#metric.jobRuns.labels(job).inc();
    this.#metric.jobDuration.labels(job).observe(ms / 1000);
    if (outcome === "failed") this.#metric.jobFailures.labels(job).inc();
    else this.#metric.jobLastSuccess.labels(job).set(this.#clock() / 1000);
  }

  /**
   * A settled gateway call and what it was charged from (`usage`, or the hold: `hold_no_usage`,
   * `hold_over_bound`): the `CompletionDesk`'s `onCharge`.
   */
  gatewayCharged(provider: string, basis: string): void {
    this.#metric.gatewayCharges.labels(provider, basis).inc();
  }

  /**
   * A storage failure: `request` for an unhandled error answered 500 (storage failing is the
   * usual cause), or the name of the background work that saw it (e.g. `readiness`).
   */
  storageError(source: string): void {
    this.#metric.storageErrors.labels(source).inc();
  }

  /**
   * A settled event was contradicted: by its market source (`ingestion`), or by its event record
   * against the settlement it was scored on (`scoring`). Counted once per event and instance.
   */
  settlementContradicted(seenBy: "ingestion" | "scoring"): void {
    this.#metric.settlementContradictions.labels(seenBy).inc();
  }

  #kind(kind: string): KindSeries {
    let series = this.#kinds.get(kind);
    if (series === undefined) {
      series = {
        pending: this.#metric.mailboxDepth.labels(kind),
        deepest: this.#metric.mailboxMaxDepth.labels(kind),
        deepestSeen: 0,
        duration: this.#metric.messageDuration.labels(kind),
        failures: this.#metric.messageFailures.labels(kind),
      };
      this.#kinds.set(kind, series);
    }
    return series;
  }

  #actorEnqueued(kind: string, depth: number): void {
    const series = this.#kind(kind);
    series.pending.inc();
    if (depth > series.deepestSeen) {
      series.deepestSeen = depth;
      series.deepest.set(depth);
    }
  }

  #actorDone(kind: string, ms: number, failed: boolean): void {
    const series = this.#kind(kind);
    series.pending.dec();
    series.duration.observe(ms / 1000);
    if (failed) series.failures.inc();
  }

  #actorShed(kind: string, reason: string): void {
    if (reason !== "full") this.#kind(kind).pending.dec();
    this.#metric.messagesShed.labels(kind, reason).inc();
  }

  #upstreamAttempt(upstream: string, ms: number, outcome: AttemptOutcome): void {
    const label = typeof outcome === "number" ? `${Math.floor(outcome / 100)}xx` : outcome;
    this.#metric.upstreamDuration.labels(upstream, label).observe(ms / 1000);
    const reason = upstreamErrorReason(outcome);
    if (reason !== undefined) this.#metric.upstreamErrors.labels(upstream, reason).inc();
  }
}

/** The `reason` label of a failed upstream attempt; undefined when the upstream answered normally. */
function upstreamErrorReason(outcome: AttemptOutcome): string | undefined {
  if (typeof outcome === "string") return outcome;
  if (outcome === 429) return "429";
  return outcome >= 500 ? "5xx" : undefined;
}
