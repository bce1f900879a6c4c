/**
 * What every network adapter does the same way: one POST of JSON per call to the provider's
 * `baseUrl`, through its retrying client (`providerHttpClient`), every failure mapped to a
 * `ProviderError` (`postJson`). A vendor's adapter gives only its `WireFormat`.
 */
import type { HttpClient } from "../../kernel/mod.ts";
import type { CompletionRequest } from "../chat_request.ts";
import type { CompleteOptions, CompletionResult, ProviderAdapter } from "../provider_adapter.ts";
import type { ProviderEntry } from "../provider_catalog.ts";
import { postJson, providerHttpClient, type ProviderHttpOptions } from "./provider_http.ts";

/** A vendor's API as an adapter speaks it. */
export interface WireFormat {
  /** Where a completion is POSTed, after the provider's `baseUrl`. */
  path: string;
  /** The request's headers, with the operator's key when the catalog gives one. */
  headers(apiKey: string | undefined): Record<string, string>;
  /** The JSON body of a completion request. */
  body(provider: ProviderEntry, request: CompletionRequest): Record<string, unknown>;
  /** The completion in a 2xx answer; a `ProviderError` for one it cannot read. */
  read(json: unknown, providerId: string): CompletionResult;
}

/** A provider adapter over HTTP, speaking `wire`. */
export class HttpProviderAdapter implements ProviderAdapter {
  readonly #provider: ProviderEntry;
  readonly #wire: WireFormat;
  readonly #http: HttpClient;

  constructor(provider: ProviderEntry, wire: WireFormat, options: ProviderHttpOptions = {}) {
    this.#provider = provider;
    this.#wire = wire;
    this.#http = providerHttpClient(provider, options);
  }

  async complete(request: CompletionRequest, options: CompleteOptions = {}): Promise<CompletionResult> {
    const { apiKey, baseUrl, id, timeoutMs } = this.#provider;
    const json = await postJson(this.#http, `${baseUrl}${this.#wire.path}`, {
      headers: this.#wire.headers(apiKey?.reveal()),
      body: this.#wire.body(this.#provider, request),
      timeoutMs,
      signal: options.signal,
    });
    return this.#wire.read(json, id);
  }
}
