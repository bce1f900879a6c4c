import type { ProviderAdapter } from "./provider_adapter.ts";
import type { ProviderCatalog, ProviderEntry } from "./provider_catalog.ts";
import { AnthropicAdapter } from "./providers/anthropic/anthropic_adapter.ts";
import { EchoAdapter } from "./providers/echo/echo_adapter.ts";
import { OpenAiAdapter } from "./providers/openai/openai_adapter.ts";
import type { ProviderHttpOptions } from "./providers/provider_http.ts";

/** The adapter of one catalog entry, by its kind. */
export function createAdapter(provider: ProviderEntry, options: ProviderHttpOptions = {}): ProviderAdapter {
  switch (provider.kind) {
    case "openai":
      return new OpenAiAdapter(provider, options);
    case "anthropic":
      return new AnthropicAdapter(provider, options);
    case "echo":
      return new EchoAdapter();
  }
}

/** One adapter per provider of the catalog, built once at start. */
export class AdapterRegistry {
  readonly #adapters: ReadonlyMap<string, ProviderAdapter>;

  constructor(catalog: ProviderCatalog, options: ProviderHttpOptions = {}) {
    this.#adapters = new Map(catalog.providers.map((p) => [p.id, createAdapter(p, options)]));
  }

  /** The adapter of a provider the catalog resolved; a `TypeError` for one it does not hold. */
  get(providerId: string): ProviderAdapter {
    const adapter = this.#adapters.get(providerId);
    if (!adapter) throw new TypeError(`No adapter for provider: ${providerId}`);
    return adapter;
  }
}
