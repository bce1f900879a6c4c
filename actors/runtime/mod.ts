/**
 * The actor runtime: virtual actors with one bounded FIFO mailbox per id, the periodic-job scheduler under storage leases, and the request coalescer.
 *
 * @module
 */
export * from "./actor_system.ts";
export * from "./coalesce.ts";
export * from "./scheduler.ts";
