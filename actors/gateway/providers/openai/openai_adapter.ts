/**
 * OpenAI-compatible chat completions (OpenAI, OpenRouter, Chutes, vLLM, Ollama):
 * `POST {baseUrl}/chat/completions` with a Bearer key, `maxTokens` under the provider's
 * `tokenLimitParam`, and the catalog's `extraBody` merged in (the request's own fields win).
 */
import type { HttpClient } from "../../../kernel/mod.ts";
import type { CompletionRequest } from "../../chat_request.ts";
import type { CompleteOptions, CompletionResult, ProviderAdapter } from "../../provider_adapter.ts";
import type { ProviderEntry } from "../../provider_catalog.ts";
import { postJson, providerHttpClient, type ProviderHttpOptions } from "../provider_http.ts";
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

export class OpenAiAdapter implements ProviderAdapter {
  readonly #provider: ProviderEntry;
  readonly #http: HttpClient;

  constructor(provider: ProviderEntry, options: ProviderHttpOptions = {}) {
    this.#provider = provider;
    this.#http = providerHttpClient(provider, options);
  }

  async complete(request: CompletionRequest, options: CompleteOptions = {}): Promise<CompletionResult> {
    const { apiKey, baseUrl, id, timeoutMs } = this.#provider;
    const json = await postJson(this.#http, `${baseUrl}/chat/completions`, {
      headers: apiKey ? { authorization: `Bearer ${apiKey.reveal()}` } : {},
      body: openAiRequestBody(this.#provider, request),
      timeoutMs,
      signal: options.signal,
    });
    return readOpenAiCompletion(json, id);
  }
}
