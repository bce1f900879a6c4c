/**
 * OpenAI-compatible chat completions (OpenAI, OpenRouter, Chutes, vLLM, Ollama):
 * `POST {baseUrl}/chat/completions` with a Bearer key, `maxTokens` under the provider's
 * `tokenLimitParam`, and the catalog's `extraBody` merged in (the request's own fields win).
 */
import type { CompletionRequest } from "../../chat_request.ts";
import type { ProviderEntry } from "../../provider_catalog.ts";
import { HttpProviderAdapter, type WireFormat } from "../http_provider_adapter.ts";
import type { ProviderHttpOptions } from "../provider_http.ts";
import { readOpenAiCompletion } from "./openai_response.ts";

/** The JSON body of a chat completion request. */
export function openAiRequestBody(
  provider: ProviderEntry,
  request: CompletionRequest,
): Record<string, unknown> {
  return {
    ...provider.extraBody,
    model: request.model,
    messages: request.messages.map(({ role, content }) => ({ role, content })),
    [provider.tokenLimitParam]: request.maxTokens,
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.topP === undefined ? {} : { top_p: request.topP }),
    ...(request.stop === undefined ? {} : { stop: request.stop }),
  };
}

/** OpenAI's chat completions as the adapter speaks them. */
export const OPENAI_WIRE: WireFormat = {
  path: "/chat/completions",
  headers: (apiKey) => apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` },
  body: openAiRequestBody,
  read: readOpenAiCompletion,
};

export class OpenAiAdapter extends HttpProviderAdapter {
  constructor(provider: ProviderEntry, options: ProviderHttpOptions = {}) {
    super(provider, OPENAI_WIRE, options);
  }
}
