/**
 * Prices: the `PriceSource` port with its `chain` adapter (CoinGecko TAO/USD, Subtensor alpha price
 * and dynamic info, decoded from SCALE) and `file` adapter, the periodic prices job writing one
 * fenced record to the settings store, and the per-instance `PriceView` with its stale flag.
 *
 * @module
 */
export * from "./price_source.ts";
export * from "./subnet_scale.ts";
export * from "./chain_price_source.ts";
export * from "./file_price_source.ts";
export * from "./price_record.ts";
export * from "./prices_sync_job.ts";
export * from "./price_view.ts";
