/**
 * Small shared helpers every area uses: the injected clock, JSON-lines logging, the service error with its wire code, constant-time comparison, header values, SS58 addresses, the instance's Prometheus metrics, and the one retrying HTTP client for upstreams.
 *
 * @module
 */
export * from "./clock.ts";
export * from "./constant_time.ts";
export * from "./header_value.ts";
export * from "./http_client.ts";
export * from "./log.ts";
export * from "./metrics.ts";
export * from "./service_error.ts";
export * from "./ss58.ts";
export * from "./upstream_error.ts";
export * from "./version.ts";
