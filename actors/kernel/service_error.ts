/** Every error code the service answers with; routes map each to an HTTP status. */
export type ErrorCode =
  | "invalid_request"
  | "unauthenticated"
  | "invalid_signature"
  | "timestamp_out_of_window"
  | "nonce_reused"
  | "insufficient_credits"
  /** A miner's daily cap on validator completions is spent (402). */
  | "spend_cap_reached"
  | "insufficient_scope"
  | "hotkey_not_in_metagraph"
  | "validator_permit_required"
  | "miner_not_registered"
  | "wrong_auth_scheme"
  /** A dashboard member whose role does not allow the action (a viewer asking an owner's action). */
  | "insufficient_role"
  /** A dashboard request that changes state without its session's CSRF token or a same-origin `Origin`. */
  | "csrf_refused"
  | "not_found"
  | "pool_empty"
  | "conflict"
  | "lease_not_held"
  /** The dashboard is off: `FGW_PUBLIC_URL` is not set. */
  | "dashboard_off"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "upstream_error"
  | "upstream_timeout"
  | "metagraph_unavailable"
  | "not_ready"
  /** Overloaded: a full mailbox or an internal timeout; always with Retry-After. */
  | "unavailable"
  | "internal_error";

/** An error a caller is expected to catch and render: it carries a stable code. */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  /** Seconds a client should wait before retrying (429, 503). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = "ServiceError";
    this.code = code;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
