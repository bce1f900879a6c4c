import type { Context, MiddlewareHandler } from "hono";
import { type Clock, isoAt } from "../../actors/kernel/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import type { CountKeyUse } from "../../actors/keys/mod.ts";
import type { BalanceReply } from "../../actors/billing/mod.ts";
import type { ApiKeyScope } from "../../storage/api_key_store.ts";
import type { Storage } from "../../storage/storage.ts";
import type { AppEnv } from "../http/app_env.ts";
import { answerHeader } from "../http/answer.ts";
import { type Admission, ApiKeyVerifier, type AuthenticatedKey } from "../../actors/keys/mod.ts";
import { secondsUntilReset } from "../../actors/keys/mod.ts";

/**
 * Context of a route behind `apiKeyAuth`: `c.get("apiKey")` is the authenticated key,
 * `c.get("orgBalance")` its org's balance and `c.get("orgDefaultMiner")` the org's default miner,
 * read by the storage step that admitted the request; `c.get("alongside")` the work the route's
 * `Alongside` started, of type `W`, when it started any.
 */
export type KeyEnv<W extends AlongsideWork = AlongsideWork> = {
  Bindings: AppEnv["Bindings"];
  Variables: {
    apiKey: AuthenticatedKey;
    orgBalance: BalanceReply;
    orgDefaultMiner: string | null;
    alongside?: W;
  };
};

/** What key authentication needs, built once per app instance. */
export interface ApiKeyAccess {
  verifier: ApiKeyVerifier;
}

/**
 * Builds the key-authentication state of one app instance: keys from `storage`, uses counted by
 * KeyUsageActors.
 */
export function createApiKeyAccess(
  storage: Storage,
  countKeyUse: CountKeyUse,
  options: { clock: Clock; rememberSecrets: boolean },
): ApiKeyAccess {
  return { verifier: new ApiKeyVerifier({ keys: storage.apiKeys, countKeyUse, ...options }) };
}

/** Headers of the sr25519 signature scheme (docs/signatures.md); they must not reach a key route. */
export const SIGNATURE_HEADERS = [
  "x-validator-hotkey",
  "x-validator-nonce",
  "x-validator-timestamp",
  "x-validator-signature",
  "x-miner-nonce",
  "x-miner-timestamp",
  "x-miner-signature",
  "x-miner-hotkey",
] as const;

const SIGNATURE_HEADER_NAMES: ReadonlySet<string> = new Set(SIGNATURE_HEADERS);

/**
 * True when the request carries any sr25519 signature header. One pass over the request's
 * headers (names come lowercased): it runs on every key request, and eight lookups by name cost
 * about twice as much.
 */
export function hasSignatureHeaders(c: Context): boolean {
  let found = false;
  c.req.raw.headers.forEach((_value, name) => {
    if (SIGNATURE_HEADER_NAMES.has(name)) found = true;
  });
  return found;
}

/** Work started beside a key's storage step, which the route's handler may take over. */
export interface AlongsideWork {
  /**
   * Undoes the work unless the handler took it over: run when the route is done with the request,
   * whatever its answer, before that answer goes out.
   */
  undo(): Promise<void>;
}

/**
 * Work a route starts while its key's storage step is in flight (the gateway's early hold, which
 * saves the call a storage round trip), given the key as this instance remembers it: a preview,
 * not an admission. Answers the work (the handler finds it in `c.get("alongside")`), or null when
 * it started nothing. Built with `alongside`.
 */
export type Alongside<W extends AlongsideWork = AlongsideWork> = (
  c: Context<KeyEnv>,
  key: AuthenticatedKey,
) => W | null;

/**
 * The `Alongside` of a route: `read` parses what the work needs from the request (null: nothing
 * to start on), and `start`, the method of the work's owner, starts it for the key.
 */
export function alongside<I, W extends AlongsideWork>(
  read: (c: Context<KeyEnv>) => I | null,
  start: (key: AuthenticatedKey, input: I) => W | null,
): Alongside<W> {
  return (c, key) => {
    const input = read(c);
    return input === null ? null : start(key, input);
  };
}

export interface ApiKeyAuthOptions {
  /** The scope the route needs (docs/api_keys.md, "Keys"). */
  scope: ApiKeyScope;
  access: ApiKeyAccess;
  alongside?: Alongside;
}

/**
 * API-key authentication for one route, in this order: signature headers → 403 `wrong_auth_scheme`;
 * missing, malformed, unknown, rotated-out, revoked, deleted or expired key → 401 `unauthenticated`;
 * per-key rate limit (shared fixed one-minute windows; headers on every answer from here on) →
 * 429 `rate_limited`; scope → 403 `insufficient_scope`. Sets `c.get("apiKey")`, `c.get("orgBalance")`
 * and `c.get("orgDefaultMiner")`.
 */
export function apiKeyAuth(options: ApiKeyAuthOptions): MiddlewareHandler<KeyEnv> {
  const { scope, access, alongside } = options;
  return async (c, next) => {
    if (hasSignatureHeaders(c)) {
      throw new ServiceError("wrong_auth_scheme", "This route takes an API key, not a request signature");
    }
    const header = c.req.header("authorization");
    const token = header === undefined ? undefined : /^Bearer +(\S+) *$/i.exec(header)?.[1];
    const work = alongside && token !== undefined
      ? startAlongside(c, { token, scope, access, alongside })
      : null;
    if (work) c.set("alongside", work);
    try {
      const admission = await authenticate(c, access.verifier, { header, token });
      enforceRateLimit(c, admission);
      const key = admission.key;
      if (!key.scopes.includes(scope)) {
        throw new ServiceError("insufficient_scope", `API key lacks the scope this route needs: ${scope}`, {
          details: { requiredScope: scope },
        });
      }
      c.set("apiKey", key);
      c.set("orgBalance", admission.balance);
      c.set("orgDefaultMiner", admission.defaultMinerHotkey);
      await next();
    } finally {
      await work?.undo();
    }
  };
}

/** Starts the route's `alongside` work when this instance recognises the key and it has the scope. */
function startAlongside(
  c: Context<KeyEnv>,
  at: { token: string; scope: ApiKeyScope; access: ApiKeyAccess; alongside: Alongside },
): AlongsideWork | null {
  const key = at.access.verifier.recognise(at.token);
  return key && key.scopes.includes(at.scope) ? at.alongside(c, key) : null;
}

/** The admission of the presented key; 401 (with `WWW-Authenticate`) when there is none or it is refused. */
async function authenticate(
  c: Context,
  verifier: ApiKeyVerifier,
  presented: { header: string | undefined; token: string | undefined },
): Promise<Admission> {
  const { header, token } = presented;
  const admission = token === undefined ? null : await verifier.admit(token);
  if (admission) return admission;
  answerHeader(c, "WWW-Authenticate", 'Bearer realm="api"');
  const message = header === undefined
    ? "Missing API key: send Authorization: Bearer <key>"
    : "Invalid API key: it is malformed, unknown, rotated, revoked or expired";
  throw new ServiceError("unauthenticated", message);
}

/**
 * Sets the X-RateLimit headers from the request's place in its window; throws 429 when over.
 * (The key's `lastUsedAt` is recorded by the storage step that counted the request.)
 */
function enforceRateLimit(c: Context, admission: Admission): void {
  const { key, count, window, nowMs: now } = admission;
  answerHeader(c, "X-RateLimit-Limit", String(key.rateLimitRpm));
  answerHeader(c, "X-RateLimit-Remaining", String(Math.max(0, key.rateLimitRpm - count)));
  if (count > key.rateLimitRpm) {
    throw new ServiceError("rate_limited", "API key rate limit exceeded: try again when the window resets", {
      retryAfterSeconds: secondsUntilReset(window, now),
      details: { limit: key.rateLimitRpm, windowResetsAt: isoAt(window.endMs) },
    });
  }
}
