/**
 * API keys and authentication: the ApiKeyActor per key record, key secrets, the verifier that authenticates a bearer key, per-key usage counting and rate windows.
 *
 * @module
 */
export * from "./api_key_actor.ts";
export * from "./api_key_secret.ts";
export * from "./api_key_verifier.ts";
export * from "./key_usage_actor.ts";
export * from "./rate_limit_purge_job.ts";
export * from "./rate_window.ts";
