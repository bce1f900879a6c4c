import { type Logger, ServiceError } from "../kernel/mod.ts";
import { ProviderError } from "./provider_adapter.ts";

/** Where a provider call failed, for its log line. */
export interface FailedCallContext {
  provider: string;
  requestId: string;
  log: Logger;
  /** The call's cancellation: aborted, the failure is the service shutting down. */
  signal?: AbortSignal | undefined;
}

/**
 * The client's answer to a failed provider call, logged (docs/gateway.md, "Upstream outcomes"):
 * the provider's failure as the table maps it, an account failure at error level; a cancelled
 * call 503; an adapter failing otherwise 502, never a 500.
 */
export function failedCallAnswer(error: unknown, at: FailedCallContext): ServiceError {
  const { log, provider, requestId } = at;
  if (error instanceof ProviderError) {
    const account = error.failure === "account";
    log({
      level: account ? "error" : "warn",
      msg: account ? "provider refused the operator's account or key" : "provider call failed",
      provider,
      requestId,
      failure: error.failure,
      status: error.status,
      reason: error.reason,
    });
    return error.toServiceError();
  }
  if (at.signal?.aborted) {
    return new ServiceError("unavailable", "The call was cancelled: the service is shutting down", {
      details: { provider },
      retryAfterSeconds: 1,
    });
  }
  log({
    level: "error",
    msg: "provider adapter failed unexpectedly",
    provider,
    requestId,
    error: String(error),
  });
  return new ServiceError("upstream_error", "The provider failed", { details: { provider } });
}
