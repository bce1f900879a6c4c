/**
 * Codes of a connection that could not be made or was lost: postgres.js's own, and the
 * runtime's socket errors.
 */
const CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** PostgreSQL's class 08, connection exception (SQLSTATE 08000, 08006, …). */
const CONNECTION_EXCEPTION = /^08[0-9A-Z]{3}$/;

/** Causes followed at most: an error chain is never longer in practice. */
const MAX_CAUSES = 5;

/**
 * True when `error` (or one of its causes) says the storage could not be reached or will not
 * serve for now: a connection refused, reset or lost, or any error PostgreSQL raises as FATAL
 * (or PANIC), which ends the session: the server shutting down or restarting (57P01–57P03), out
 * of connections (53300), the database refusing new connections (55000), gone (3D000) or the
 * login refused. Such a request may well succeed a moment later, so it is answered 503
 * `unavailable` with `Retry-After`, not 500 (docs/conventions.md keeps 500 for a bug). A statement the
 * database refuses for what it says (a constraint, a syntax error) is not this.
 */
export function isStorageUnavailable(error: unknown): boolean {
  let at = error;
  for (let depth = 0; depth < MAX_CAUSES && at instanceof Error; depth++) {
    const { code, severity } = at as { code?: unknown; severity?: unknown };
    if (severity === "FATAL" || severity === "PANIC") return true;
    if (typeof code === "string" && (CONNECTION_CODES.has(code) || CONNECTION_EXCEPTION.test(code))) {
      return true;
    }
    at = at.cause;
  }
  return false;
}
