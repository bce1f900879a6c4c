import { ServiceError } from "../kernel/mod.ts";
import type { ModelPrice } from "./pricing.ts";
import type { SecretValue } from "./secret_value.ts";

/** Which wire format a provider speaks. */
export type ProviderKind = "openai" | "anthropic" | "echo";

/** The field an OpenAI-compatible provider reads `maxTokens` from. */
export type TokenLimitParam = "max_tokens" | "max_completion_tokens";

/** The largest `maxTokens` a model accepts unless its entry says otherwise. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 32_768;

/** A provider's time allowed for one upstream call unless its entry says otherwise. */
export const DEFAULT_PROVIDER_TIMEOUT_MS = 60_000;

export interface ModelEntry extends ModelPrice {
  id: string;
  maxOutputTokens: number;
}

/** One provider as the service runs it. Its API key prints as `[redacted]`. */
export interface ProviderEntry {
  id: string;
  kind: ProviderKind;
  /** The API root (`…/v1` for OpenAI-compatible ones); empty for `echo`. */
  baseUrl: string;
  apiKey: SecretValue | null;
  timeoutMs: number;
  allowsAnyModel: boolean;
  /** The price of a model not in `models` (only with `allowsAnyModel`). */
  anyModelPrice: ModelPrice | null;
  models: readonly ModelEntry[];
  markupBps: number;
  tokenLimitParam: TokenLimitParam;
  /** Merged into every upstream request body (the adapter's own fields win). */
  extraBody: Readonly<Record<string, unknown>>;
}

/** What a (provider, model) pair costs and allows. */
export interface ResolvedModel {
  provider: ProviderEntry;
  model: string;
  price: ModelPrice;
  maxOutputTokens: number;
  markupBps: number;
}

/** The public listing of `GET /v1/gateway/providers`. */
export interface ProviderListing {
  providers: { id: string; models: string[]; allowsAnyModel: boolean }[];
}

/** The built-in `echo` provider (docs/gateway.md, "Configuring providers (operators)"), no network, 1,000,000 micro per MTok each way, no markup. */
export function echoProvider(id = "echo"): ProviderEntry {
  return {
    id,
    kind: "echo",
    baseUrl: "",
    apiKey: null,
    timeoutMs: DEFAULT_PROVIDER_TIMEOUT_MS,
    allowsAnyModel: false,
    anyModelPrice: null,
    models: [{
      id: "echo-1",
      inputMicroPerMTok: 1_000_000n,
      outputMicroPerMTok: 1_000_000n,
      maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS,
    }],
    markupBps: 0,
    tokenLimitParam: "max_tokens",
    extraBody: {},
  };
}

function unknownField(field: "provider" | "model", problem: string): ServiceError {
  return new ServiceError("invalid_request", `Unknown ${field}`, {
    details: { fields: [{ field, problem }] },
  });
}

/** The providers this instance may call, looked up by id, with each model's price and limits. */
export class ProviderCatalog {
  readonly #providers: ReadonlyMap<string, ProviderEntry>;
  readonly #listing: ProviderListing;

  constructor(providers: readonly ProviderEntry[]) {
    this.#providers = new Map(providers.map((provider) => [provider.id, provider]));
    if (this.#providers.size !== providers.length) throw new TypeError("Provider ids must be unique");
    this.#listing = {
      providers: providers.map((p) => ({
        id: p.id,
        models: p.models.map((m) => m.id),
        allowsAnyModel: p.allowsAnyModel,
      })),
    };
  }

  /** The catalog without a file: only the built-in `echo` provider. */
  static builtIn(): ProviderCatalog {
    return new ProviderCatalog([echoProvider()]);
  }

  get providers(): readonly ProviderEntry[] {
    return [...this.#providers.values()];
  }

  provider(id: string): ProviderEntry | undefined {
    return this.#providers.get(id);
  }

  /**
   * The price and limits of `model` at `providerId`: a listed model's own, else the provider's
   * `anyModelPrice` when it allows any model; 400 `invalid_request` naming `provider` or `model`.
   */
  resolve(providerId: string, model: string): ResolvedModel {
    const provider = this.#providers.get(providerId);
    if (!provider) throw unknownField("provider", `No provider "${providerId}" in the catalog`);
    const { markupBps } = provider;
    const entry = provider.models.find((m) => m.id === model);
    if (entry) {
      const { inputMicroPerMTok, outputMicroPerMTok, maxOutputTokens } = entry;
      return {
        provider,
        model,
        price: { inputMicroPerMTok, outputMicroPerMTok },
        maxOutputTokens,
        markupBps,
      };
    }
    if (provider.allowsAnyModel && provider.anyModelPrice && model.length > 0) {
      const maxOutputTokens = DEFAULT_MAX_OUTPUT_TOKENS;
      return { provider, model, price: provider.anyModelPrice, maxOutputTokens, markupBps };
    }
    throw unknownField("model", `Provider "${providerId}" offers no model "${model}"`);
  }

  /** The catalog as the file writes it: prices as decimal strings, API keys `[redacted]`. */
  toJSON(): { providers: unknown[] } {
    return { providers: this.providers.map(entryJson) };
  }

  /** The public listing (the same object every time: callers must not change it). */
  listing(): ProviderListing {
    return this.#listing;
  }

  /**
   * The longest `timeoutMs` of a provider that makes network calls (0 with `echo` alone): what
   * the hold TTL and the shutdown grace must cover.
   */
  longestTimeoutMs(): number {
    const remote = [...this.#providers.values()].filter((p) => p.kind !== "echo");
    return Math.max(0, ...remote.map((p) => p.timeoutMs));
  }
}

function priceJson(price: ModelPrice): { inputMicroPerMTok: string; outputMicroPerMTok: string } {
  return {
    inputMicroPerMTok: price.inputMicroPerMTok.toString(),
    outputMicroPerMTok: price.outputMicroPerMTok.toString(),
  };
}

/** One entry with its bigint prices as strings (JSON has no bigint). */
function entryJson(provider: ProviderEntry): Record<string, unknown> {
  return {
    ...provider,
    apiKey: provider.apiKey?.toJSON() ?? null,
    anyModelPrice: provider.anyModelPrice && priceJson(provider.anyModelPrice),
    models: provider.models.map((m) => ({ ...m, ...priceJson(m) })),
  };
}
