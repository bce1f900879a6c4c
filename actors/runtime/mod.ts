/**
 * The actor runtime: virtual actors with one bounded FIFO mailbox per id (typed replies,
 * timeouts, must-complete messages, metrics hooks), the conditional-write helper, the
 * periodic-job scheduler under storage leases with the scaffold of jobs that sync an upstream
 * (failure backoff), and the request coalescer. docs/runtime.md.
 *
 * @module
 */
export * from "./actor_kind.ts";
export * from "./actor_options.ts";
export * from "./actor_system.ts";
export * from "./coalesce.ts";
export * from "./conditional_write.ts";
export * from "./scheduler.ts";
export * from "./failure_backoff.ts";
export * from "./upstream_sync_job.ts";
