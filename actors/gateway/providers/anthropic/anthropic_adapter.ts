/**
 * Anthropic Messages API: `POST {baseUrl}/v1/messages` with `x-api-key` and `anthropic-version`.
 * The request's system messages become the top-level `system` (joined by a blank line, in order);
 * the others stay `messages`. `topP` → `top_p`, `stop` → `stop_sequences`.
 */
import type { CompletionRequest } from "../../chat_request.ts";
import type { ProviderEntry } from "../../provider_catalog.ts";
import { HttpProviderAdapter, type WireFormat } from "../http_provider_adapter.ts";
import type { ProviderHttpOptions } from "../provider_http.ts";
import { readAnthropicMessage } from "./anthropic_response.ts";

/** The Messages API version the adapter speaks. */
export const ANTHROPIC_VERSION = "2023-06-01";

/** The JSON body of a Messages request. */
export function anthropicRequestBody(
  provider: ProviderEntry,
  request: CompletionRequest,
): Record<string, unknown> {
  const system = request.messages.filter((m) => m.role === "system").map((m) => m.content);
  const turns = request.messages.filter((m) => m.role !== "system");
  const stop = typeof request.stop === "string" ? [request.stop] : request.stop;
  return {
    ...provider.extraBody,
    model: request.model,
    max_tokens: request.maxTokens,
    messages: turns.map(({ role, content }) => ({ role, content })),
    ...(system.length === 0 ? {} : { system: system.join("\n\n") }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.topP === undefined ? {} : { top_p: request.topP }),
    ...(stop === undefined ? {} : { stop_sequences: stop }),
  };
}

/** Anthropic's Messages API as the adapter speaks it. */
export const ANTHROPIC_WIRE: WireFormat = {
  path: "/v1/messages",
  headers: (apiKey) => ({
    "anthropic-version": ANTHROPIC_VERSION,
    ...(apiKey === undefined ? {} : { "x-api-key": apiKey }),
  }),
  body: anthropicRequestBody,
  read: readAnthropicMessage,
};

export class AnthropicAdapter extends HttpProviderAdapter {
  constructor(provider: ProviderEntry, options: ProviderHttpOptions = {}) {
    super(provider, ANTHROPIC_WIRE, options);
  }
}
