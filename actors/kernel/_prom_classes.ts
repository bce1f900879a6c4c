/**
 * The four prom-client classes the service uses, loaded from their own files: the package's index
 * also loads its push gateway (node:http, node:https), its default process metrics (with
 * @opentelemetry/api) and its cluster aggregator, none of which the service uses; that was about
 * 30 ms of CPU at every start, so in every test file. Typed by the package's own declarations
 * (type imports of "prom-client" load nothing).
 *
 * @module
 */
import type * as PromClient from "prom-client";
import registry from "prom-client/lib/registry.js";
import counter from "prom-client/lib/counter.js";
import gauge from "prom-client/lib/gauge.js";
import histogram from "prom-client/lib/histogram.js";

export const Registry = registry as unknown as typeof PromClient.Registry;
export const Counter = counter as unknown as typeof PromClient.Counter;
export const Gauge = gauge as unknown as typeof PromClient.Gauge;
export const Histogram = histogram as unknown as typeof PromClient.Histogram;
