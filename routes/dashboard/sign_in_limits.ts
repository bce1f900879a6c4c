import type { Context, MiddlewareHandler } from "hono";
import { type Clock, ServiceError } from "../../actors/kernel/mod.ts";
import { MINUTE_MS, type RateWindow, secondsUntilReset, windowAt } from "../../actors/keys/mod.ts";
import type { RateLimitStore } from "../../storage/rate_limit_store.ts";
import { clientAddress, clientKey, normalizeAddress } from "../middleware/ip_throttle.ts";
import { isJsonContentType } from "../middleware/json_body.ts";

/** How many sign-in attempts pass, per client address and per account. */
export interface SignInLimitSettings {
  /** Every sign-in request (options and answers) of one client address (IPv4, or IPv6 /64). */
  perAddress: { attempts: number; windowMs: number };
  /**
   * Failed verifications naming one account (a member, a hotkey). `perSource`: a client address
   * with that many failures on the account is refused until the window ends. `failures`: once the
   * account has that many from all sources, every source with a failure on it is refused; a
   * source without one still gets its answer verified, so nobody can lock a member out.
   */
  perAccount: { failures: number; perSource: number; windowMs: number };
}

export const SIGN_IN_LIMITS: SignInLimitSettings = {
  perAddress: { attempts: 30, windowMs: MINUTE_MS },
  perAccount: { failures: 20, perSource: 5, windowMs: 15 * MINUTE_MS },
};

export interface SignInLimitDeps {
  /** The rate-limit windows every instance shares (`storage.rateLimits`). */
  store: RateLimitStore;
  clock: Clock;
  /** Proxies whose `X-Forwarded-For` is believed (`FGW_TRUSTED_PROXIES`). */
  trustedProxies: readonly string[];
  settings?: SignInLimitSettings;
}

/** Reads which account a sign-in answer names, before it is verified; null when it names none. */
export type AccountOf = (c: Context) => Promise<string | null>;

/**
 * The JSON body of a sign-in answer, for an `AccountOf`: read from a copy, so the route behind
 * still reads the body itself (the dashboard's middleware capped its size before); null when the
 * body is not JSON.
 */
export async function jsonBodyCopy(c: Context): Promise<unknown> {
  if (!isJsonContentType(c.req.header("content-type") ?? "")) return null;
  return await c.req.raw.clone().text().then(JSON.parse).catch(() => null);
}

/** The status of a refused verification: what counts as a failure. */
const REFUSED = 401;

/**
 * Sign-in rate limits, counted in the rate-limit store so every instance shares them:
 *
 * - `perAddress()`: in front of every sign-in endpoint (options and answers); each request of a
 *   client address counts, over the limit 429 `rate_limited` with `Retry-After`.
 * - `perAccount(accountOf)`: in front of an endpoint that verifies an answer; only an answer
 *   refused with 401 counts, against the account it names and its source. Over a limit, 429
 *   before the answer is verified (its challenge left unused).
 *
 * A request with no connection address (an in-process `app.request`) is not counted per address
 * and counts as one source `unknown` per account.
 *
 * Another sign-in (the hotkey's) uses the same: `app.use(path, limits.perAddress())` on its
 * options and answer paths, and `app.use(answerPath, limits.perAccount(accountOf))` where
 * `accountOf` reads the hotkey from the body (docs/dashboard.md, "Sign-in rate limits").
 */
export class SignInLimits {
  readonly #store: RateLimitStore;
  readonly #clock: Clock;
  readonly #trusted: ReadonlySet<string>;
  readonly #settings: SignInLimitSettings;

  constructor(deps: SignInLimitDeps) {
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#trusted = new Set(deps.trustedProxies.map(normalizeAddress));
    this.#settings = deps.settings ?? SIGN_IN_LIMITS;
  }

  /** Counts every sign-in request of the client's address; 429 over the limit. */
  perAddress(): MiddlewareHandler {
    return async (c, next) => {
      const address = clientAddress(c, this.#trusted);
      if (address !== undefined) {
        const { attempts, windowMs } = this.#settings.perAddress;
        const now = this.#clock();
        const window = windowAt(now, windowMs);
        const count = await this.#store.hit(addressBucket(clientKey(address)), {
          windowStartMs: window.startMs,
          windowMs,
        });
        if (count > attempts) throw refused(window, now, "address", attempts);
      }
      await next();
    };
  }

  /**
   * Counts an answer refused with 401 against the account it names (`accountOf`) and its source.
   * The attempt takes its place in both counts before it is verified (so racing answers cannot
   * overshoot a limit) and gives it back unless it is refused.
   */
  perAccount(accountOf: AccountOf): MiddlewareHandler {
    return async (c, next) => {
      const account = await accountOf(c);
      if (account === null) return await next();
      const address = clientAddress(c, this.#trusted);
      const source = address === undefined ? "unknown" : clientKey(address);
      const { failures, perSource, windowMs } = this.#settings.perAccount;
      const now = this.#clock();
      const window = windowAt(now, windowMs);
      const at = { windowStartMs: window.startMs, windowMs };
      const buckets = [accountBucket(account), sourceBucket(account, source)];
      const [ofAccount, ofSource] = await Promise.all(buckets.map((bucket) => this.#store.hit(bucket, at)));
      const giveBack = () =>
        Promise.all(buckets.map((bucket) => this.#store.hit(bucket, { ...at, hits: -1 })));
      // `ofSource` counts this attempt: above 1, this source already failed on the account.
      if (ofSource! > perSource || (ofAccount! > failures && ofSource! > 1)) {
        await giveBack();
        throw refused(window, now, "account", ofSource! > perSource ? perSource : failures);
      }
      try {
        await next();
      } catch (error) {
        await giveBack();
        throw error;
      }
      if (c.res.status !== REFUSED) await giveBack();
    };
  }
}

function addressBucket(client: string): string {
  return `signin:address:${client}`;
}

function accountBucket(account: string): string {
  return `signin:failed:${account}`;
}

function sourceBucket(account: string, source: string): string {
  return `signin:failed:${account}:${source}`;
}

function refused(
  window: RateWindow,
  now: number,
  limit: "address" | "account",
  allowed: number,
): ServiceError {
  const message = limit === "address"
    ? "Too many sign-in attempts from this address: try again later"
    : "Too many failed sign-ins to this account from this address: try again later";
  return new ServiceError("rate_limited", message, {
    retryAfterSeconds: secondsUntilReset(window, now),
    details: { limit, allowed },
  });
}
