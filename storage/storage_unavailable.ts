/**
 * PostgreSQL errors (SQLSTATE) that say the server cannot serve now, not that the statement is
 * wrong: class 08 (connection exception) is matched by its prefix; 53300 too many connections;
 * 57P01–57P03 the server shutting down, crashed, or not yet accepting connections.
 */
const UNAVAILABLE_SQLSTATES = new Set(["53300", "57P01", "57P02", "57P03"]);

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

/** Causes followed at most: an error chain is never longer in practice. */
const MAX_CAUSES = 5;

/**
 * True when `error` (or one of its causes) says the storage could not be reached or will not
 * serve for now: a connection refused, reset or lost, the database shutting down or restarting,
 * out of connections, or refusing new connections (any FATAL error). Such a request may well succeed a moment later, so it is answered 503
 * `unavailable` with `Retry-After`, not 500 (DESIGN §3 keeps 500 for a bug). A statement the
 * database refuses for what it says (a constraint, a syntax error) is not this.
 */
export function isStorageUnavailable(error: unknown): boolean {
  let at = error;
  for (let depth = 0; depth < MAX_CAUSES && at instanceof Error; depth++) {
    const { code, severity } = at as { code?: unknown; severity?: unknown };
    if (typeof code === "string" && unavailableCode(code)) return true;
    // A FATAL (or PANIC) error ends the session: raised while a connection is set up (the database
    // not accepting connections, 55000; not there, 3D000; the login refused) or by a server going
    // down. The statement was never the problem.
    if (severity === "FATAL" || severity === "PANIC") return true;
    at = at.cause;
  }
  return false;
}

function unavailableCode(code: string): boolean {
  return CONNECTION_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code);
}
