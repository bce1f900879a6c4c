/**
 * The market catalog: EventActor per market, ingestion from a market source (Polymarket Gamma or the snapshot file), admission rules, and the in-memory catalog view, queries and random pool that public reads are served from.
 *
 * @module
 */
export * from "./catalog_query.ts";
export * from "./catalog_snapshot.ts";
export * from "./catalog_view.ts";
export * from "./event_actor.ts";
export * from "./ingestion_job.ts";
export * from "./market_admission.ts";
export * from "./market_sanitize.ts";
export * from "./random_pool.ts";
export * from "./sources/gamma_decode.ts";
export * from "./sources/gamma_settlement.ts";
export * from "./sources/gamma_timestamp.ts";
export * from "./sources/gamma_source.ts";
export * from "./sources/market_source.ts";
export * from "./sources/snapshot_source.ts";
