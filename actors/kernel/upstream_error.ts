/** Why a request failed: a non-2xx answer, no answer in time, or no answer at all. */
export type UpstreamFailure = "status" | "timeout" | "network";

export interface UpstreamErrorInit {
  failure: UpstreamFailure;
  /** What went wrong, e.g. `HTTP 503` or `no answer within 50 ms`. */
  reason: string;
  attempts: number;
  status?: number;
  retryAfterMs?: number;
  body?: string;
}

/** A request that did not end in a 2xx answer within the attempts its policy allowed. */
export class UpstreamError extends Error {
  override readonly name = "UpstreamError";
  readonly upstream: string;
  readonly failure: UpstreamFailure;
  /** The reason and the attempts made, e.g. `HTTP 503 (3 attempts)`. */
  readonly detail: string;
  readonly attempts: number;
  /** The last answer's status, when there was an answer. */
  readonly status: number | undefined;
  /** The last answer's `Retry-After` in ms (not capped), when it sent one. */
  readonly retryAfterMs: number | undefined;
  /** The start of the last answer's body (at most 4 KiB), e.g. a provider's reason. */
  readonly body: string;

  constructor(upstream: string, init: UpstreamErrorInit, options?: ErrorOptions) {
    const detail = `${init.reason} (${init.attempts} ${init.attempts === 1 ? "attempt" : "attempts"})`;
    super(`Upstream ${upstream} failed: ${detail}`, options);
    this.upstream = upstream;
    this.failure = init.failure;
    this.detail = detail;
    this.attempts = init.attempts;
    this.status = init.status;
    this.retryAfterMs = init.retryAfterMs;
    this.body = init.body ?? "";
  }
}
