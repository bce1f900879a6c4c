import { ServiceError } from "../kernel/mod.ts";
import type { CompletionRequest } from "./chat_request.ts";

/** Token counts as the provider reported them. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** A completed upstream call. */
export interface CompletionResult {
  output: string;
  /** Absent when the provider reported no (usable) usage: the caller then charges the hold. */
  usage?: TokenUsage;
  /**
   * The provider's own figure of what the call cost the operator, as reported (OpenRouter's
   * `usage.cost`, in US dollars): a decimal string, kept in the usage record beside ours and never
   * billed from (our prices are in micro-credits, a unit the operator sets apart from dollars).
   */
  providerReportedCostUsd?: string;
}

export interface CompleteOptions {
  /** Aborts the call (the adapter then throws the signal's reason). */
  signal?: AbortSignal;
}

/** One provider behind the one small interface every kind implements. */
export interface ProviderAdapter {
  complete(request: CompletionRequest, options?: CompleteOptions): Promise<CompletionResult>;
}

/**
 * How an upstream call failed, each with its answer to the client (docs/gateway.md, "Upstream outcomes"):
 * - `timeout`: no answer within the provider's timeout → 504 `upstream_timeout`
 * - `upstream`: 5xx, malformed body, connection error, an unexpected status → 502 `upstream_error`
 * - `account`: 401/402/403, the operator's account or key → 502 `upstream_error`, logged at error level
 * - `request`: 400/404/413/422, caused by the request (an unknown model…) → 400 `invalid_request`
 * - `rate_limited`: 429 → 503 `unavailable` with `Retry-After`
 */
export type ProviderFailure = "timeout" | "upstream" | "account" | "request" | "rate_limited";

/** Retry-After sent when a provider's 429 names no wait, and the longest one passed on. */
const DEFAULT_RETRY_AFTER_S = 1;
const MAX_RETRY_AFTER_S = 300;

/** An upstream call that did not complete; `toServiceError()` is the client's answer. */
export class ProviderError extends Error {
  override readonly name = "ProviderError";
  readonly provider: string;
  readonly failure: ProviderFailure;
  /** The provider's status, when it answered. */
  readonly status: number | undefined;
  /** What went wrong, for logs; the provider's own reason for a `request` failure. */
  readonly reason: string;
  /** Seconds the provider asked us to wait (429). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    provider: string,
    init: { failure: ProviderFailure; reason: string; status?: number; retryAfterSeconds?: number },
    options?: ErrorOptions,
  ) {
    super(`Provider ${provider} failed (${init.failure}): ${init.reason}`, options);
    this.provider = provider;
    this.failure = init.failure;
    this.status = init.status;
    this.reason = init.reason;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }

  /** The answer to the client: never a 500, never the operator's account details. */
  toServiceError(): ServiceError {
    const details = { provider: this.provider, ...(this.status ? { upstreamStatus: this.status } : {}) };
    switch (this.failure) {
      case "timeout":
        return new ServiceError("upstream_timeout", "The provider did not answer in time", { details });
      case "request":
        return new ServiceError("invalid_request", `The provider refused the request: ${this.reason}`, {
          details: { ...details, reason: this.reason },
        });
      case "rate_limited": {
        const seconds = Math.min(MAX_RETRY_AFTER_S, this.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_S);
        return new ServiceError("unavailable", "The provider is rate limiting the gateway; retry later", {
          details,
          retryAfterSeconds: Math.max(1, Math.ceil(seconds)),
        });
      }
      default:
        return new ServiceError("upstream_error", "The provider failed", { details });
    }
  }
}
