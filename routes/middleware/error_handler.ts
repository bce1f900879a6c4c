import { StoreRefusal } from "../../storage/store_refusal.ts";
import { requestIdOf } from "../http/app_env.ts";
import { sendJson } from "../http/answer.ts";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "../../actors/kernel/mod.ts";
import { type ErrorCode, ServiceError } from "../../actors/kernel/mod.ts";
import { WriteConflictError } from "../../storage/retry_conditional.ts";
import { isStorageUnavailable } from "../../storage/storage_unavailable.ts";

/** HTTP status for each error code (docs/conventions.md, "Errors"). */
export const STATUS_OF: Record<ErrorCode, ContentfulStatusCode> = {
  invalid_request: 400,
  unauthenticated: 401,
  invalid_signature: 401,
  timestamp_out_of_window: 401,
  nonce_reused: 401,
  insufficient_credits: 402,
  spend_cap_reached: 402,
  insufficient_scope: 403,
  hotkey_not_in_metagraph: 403,
  validator_permit_required: 403,
  miner_not_registered: 403,
  wrong_auth_scheme: 403,
  insufficient_role: 403,
  csrf_refused: 403,
  not_found: 404,
  pool_empty: 404,
  conflict: 409,
  lease_not_held: 409,
  dashboard_off: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  upstream_error: 502,
  upstream_timeout: 504,
  metagraph_unavailable: 503,
  not_ready: 503,
  unavailable: 503,
  internal_error: 500,
};

/** Codes always answered with `Retry-After`, and the seconds sent when the error names none. */
const DEFAULT_RETRY_AFTER: Partial<Record<ErrorCode, number>> = { unavailable: 1 };

/**
 * Renders the error body of docs/conventions.md: `{"error":{code,message,details?},"requestId"}`, with
 * `Retry-After` when the error gives one (always for 503 `unavailable`).
 */
export function errorResponse(c: Context, error: ServiceError): Response {
  const requestId = requestIdOf(c);
  const retryAfterSeconds = error.retryAfterSeconds ?? DEFAULT_RETRY_AFTER[error.code];
  const retryAfter = retryAfterSeconds === undefined
    ? undefined
    : { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) };
  const body = {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
    },
    requestId,
  };
  return sendJson(c, body, STATUS_OF[error.code], retryAfter);
}

/** Codes for the client errors Hono's own middleware raises as `HTTPException`s. */
const HTTP_EXCEPTION_CODES: Partial<Record<number, [ErrorCode, string]>> = {
  400: ["invalid_request", "Invalid request"],
  401: ["unauthenticated", "Authentication required"],
  404: ["not_found", "Not found"],
  413: ["payload_too_large", "Request body is too large"],
  415: ["unsupported_media_type", "Unsupported content type"],
};

export interface OnErrorOptions {
  /** Told about each error answered 500, and each storage outage answered 503 (metrics). */
  onServerError?: (error: Error) => void;
}

/** `Retry-After` of a request refused because the storage cannot be reached. */
const STORAGE_RETRY_AFTER_SECONDS = 2;

/**
 * The app's one `onError`: known errors render with their code (a storage write that kept losing
 * its race is 409 `conflict`); storage that cannot be reached (`isStorageUnavailable`) is a logged
 * 503 `unavailable` with `Retry-After`; anything else is a logged 500.
 */
export function onError(log: Logger, options: OnErrorOptions = {}) {
  return (error: Error, c: Context): Response => {
    if (error instanceof ServiceError) return errorResponse(c, error);
    if (error instanceof StoreRefusal) {
      const retry = error.code === "conflict" ? { retryAfterSeconds: 1 } : {};
      return errorResponse(c, new ServiceError(error.code, error.message, retry));
    }
    if (error instanceof WriteConflictError) {
      return errorResponse(c, new ServiceError("conflict", error.message, { retryAfterSeconds: 1 }));
    }
    const known = error instanceof HTTPException ? HTTP_EXCEPTION_CODES[error.status] : undefined;
    if (known) return errorResponse(c, new ServiceError(known[0], known[1]));
    if (isStorageUnavailable(error)) return storageUnavailable(c, error, { log, options });
    log({
      level: "error",
      msg: "unhandled error",
      requestId: requestIdOf(c),
      error: String(error),
      stack: error.stack,
    });
    options.onServerError?.(error);
    return errorResponse(c, new ServiceError("internal_error", "Internal error"));
  };
}

/** 503 for a request the storage could not serve: logged without its stack (it is no bug). */
function storageUnavailable(
  c: Context,
  error: Error,
  at: { log: Logger; options: OnErrorOptions },
): Response {
  at.log({ level: "error", msg: "storage unavailable", requestId: requestIdOf(c), error: String(error) });
  at.options.onServerError?.(error);
  return errorResponse(
    c,
    new ServiceError("unavailable", "Storage is unavailable: try again shortly", {
      retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS,
    }),
  );
}
