/**
 * Forecasting Gateway: the HTTP service a Bittensor forecasting subnet runs on.
 *
 * Start it with `deno task start` (see README.md); embed it with `createService`.
 *
 * @module
 */
export { type Config, loadConfig } from "./scripts/service/config.ts";
export { createService, type Service, type ServiceOptions } from "./scripts/service/service.ts";
export { createApp } from "./routes/app.ts";
export type { EventRecord } from "./storage/event_record.ts";
export type { Storage } from "./storage/storage.ts";
