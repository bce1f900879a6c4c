/**
 * The billed LLM gateway: the provider catalog (`FGW_PROVIDERS_FILE` or the built-in `echo`),
 * pricing and the worst-case hold, one adapter per provider kind behind one small interface
 * (providers/openai, providers/anthropic, providers/echo), and the `CompletionDesk`, the one owner
 * of a billed call: early hold, reserve, provider call, settle or release.
 *
 * @module
 */
export * from "./adapter_registry.ts";
export * from "./catalog_file.ts";
export * from "./chat_request.ts";
export * from "./completion_charge.ts";
export * from "./completion_desk.ts";
export * from "./completion_usage.ts";
export * from "./early_hold.ts";
export * from "./gateway_timing.ts";
export * from "./pricing.ts";
export * from "./provider_adapter.ts";
export * from "./provider_catalog.ts";
export * from "./providers/anthropic/anthropic_adapter.ts";
export * from "./providers/echo/echo_adapter.ts";
export * from "./providers/http_provider_adapter.ts";
export * from "./providers/openai/openai_adapter.ts";
export * from "./providers/provider_http.ts";
export * from "./secret_value.ts";
