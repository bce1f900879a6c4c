import { LRUCache } from "lru-cache";
import type { Clock } from "../kernel/mod.ts";
import { digestMatches, sameText } from "../kernel/mod.ts";
import { hashBytes, parseApiKey } from "./api_key_secret.ts";
import type { CountKeyUse, KeyUseReply } from "./key_usage_actor.ts";
import type { BalanceReply } from "../billing/mod.ts";
import type { ApiKeyScope, ApiKeyStore, StoredApiKey } from "../../storage/api_key_store.ts";
import { Coalescer, conditionalWrite, LOST, type Lost } from "../runtime/mod.ts";
import { MINUTE_MS, type RateWindow, windowAt } from "./rate_window.ts";

/** The key a request authenticated with, as routes see it (`c.get("apiKey")`). */
export interface AuthenticatedKey {
  keyId: string;
  orgId: string;
  scopes: readonly ApiKeyScope[];
  rateLimitRpm: number;
  /**
   * The miner hotkey the key was pinned to when issued. Not re-checked here: the hotkey may have
   * been unregistered from `orgId` since, so whoever attributes a call to it must first check
   * that it is still registered to `orgId` (docs/api_keys.md, "Pinned miner").
   */
  pinnedMinerHotkey?: string;
}

/** An authenticated request, counted in its key's shared one-minute window. */
export interface Admission {
  key: AuthenticatedKey;
  /** The request's position in the window: 1 for the first; above `rateLimitRpm` means over. */
  count: number;
  window: RateWindow;
  nowMs: number;
  /** The key's org balance, read by the storage step that counted the request. */
  balance: BalanceReply;
  /** The org's default miner, read by that step too. */
  defaultMinerHotkey: string | null;
}

/** A request's place in its window and the balance read with it; null when the key was refused. */
type Counted = KeyUseReply | null;

/** A key record as an instance remembers it, with what each request needs precomputed. */
interface Remembered {
  stored: StoredApiKey;
  digest: Uint8Array;
  key: AuthenticatedKey;
  /** Revoked: -Infinity; no expiry: Infinity. */
  liveUntilMs: number;
  /**
   * The secret last seen to hash to `digest`, kept in this process's memory only (never stored or
   * logged) so that later requests compare it in constant time instead of hashing again; it goes
   * with the record (eviction, or any change of the key, which re-reads it).
   */
  verifiedSecret?: string;
  /** The request's place in its window at the last admission here, and the counts in flight. */
  lastCount?: { windowStartMs: number; count: number };
  counting?: number;
}

interface Use {
  entry: Remembered;
  window: RateWindow;
  nowMs: number;
}

/** Most key records one instance keeps in memory (the least recently used is dropped beyond it). */
const MAX_CACHED_KEYS = 10_000;
/**
 * Storage steps one request may take. A step fails only when the key's version changed since it
 * was read; every change there is (rotate, revoke, delete) ends the presented secret's validity,
 * so the re-read after a failed step answers 401 or counts with the new version.
 */
const MAX_ATTEMPTS = 5;

/** What each request needs from a stored key, computed once when it is read. */
function remembered(stored: StoredApiKey): Remembered {
  const { keyId, orgId, scopes, rateLimitRpm, pinnedMinerHotkey, revokedAt, expiresAt } = stored;
  const key: AuthenticatedKey = {
    keyId,
    orgId,
    scopes,
    rateLimitRpm,
    ...(pinnedMinerHotkey !== undefined ? { pinnedMinerHotkey } : {}),
  };
  const liveUntilMs = revokedAt !== undefined
    ? -Infinity
    : expiresAt !== undefined
    ? Date.parse(expiresAt)
    : Infinity;
  return { stored, digest: hashBytes(stored.secretHash), key: Object.freeze(key), liveUntilMs };
}

/**
 * True when `secret` is the remembered key's secret: the verified one, else by its hash (which,
 * when `remember`, makes it the verified one).
 */
function secretMatches(entry: Remembered, secret: string, remember: boolean): boolean {
  if (entry.verifiedSecret !== undefined && sameText(secret, entry.verifiedSecret)) return true;
  if (!digestMatches(secret, entry.digest)) return false;
  if (remember) entry.verifiedSecret = secret;
  return true;
}

export interface ApiKeyVerifierDeps {
  /** Key records (read only). */
  keys: ApiKeyStore;
  /** Counts a key's uses: asks its KeyUsageActor. */
  countKeyUse: CountKeyUse;
  clock: Clock;
  /** Keep a secret verified once in memory and compare it instead of hashing again (default true). */
  rememberSecrets?: boolean;
}

/**
 * Authenticates presented keys. Key records are kept in memory by key id, but validity is never
 * taken from memory: every request is counted by the key's KeyUsageActor in one storage step that
 * succeeds only while the key is still stored at the remembered version (rotate and revoke bump
 * it; delete removes it), so a rotated-out, revoked or deleted key fails at once on every
 * instance. That step also reads the org's balance, which the admission carries. Concurrent
 * requests of one key share that step (see `Coalescer`), each still checked by a step that began
 * after it arrived.
 */
export class ApiKeyVerifier {
  readonly #deps: ApiKeyVerifierDeps;
  readonly #remember: boolean;
  readonly #records = new LRUCache<string, Remembered>({ max: MAX_CACHED_KEYS });
  readonly #uses: Coalescer<Use, Counted>;

  constructor(deps: ApiKeyVerifierDeps) {
    this.#deps = deps;
    this.#remember = deps.rememberSecrets ?? true;
    this.#uses = new Coalescer((_batch, uses) => this.#countUses(uses));
  }

  /**
   * Authenticates `token` and counts the request; null when it is not a live key of ours (401).
   * Never a conflict: when the key changes during the check it is read again, and a key that
   * keeps changing through every attempt is refused (fail closed; docs/api_keys.md promises 401).
   */
  async admit(token: string): Promise<Admission | null> {
    const parsed = parseApiKey(token);
    if (!parsed) return null;
    const { keyId, secret } = parsed;
    const known = this.#fromMemory(keyId, secret);
    // The common case, a remembered key counted at its version, needs no retry loop: only a lost
    // step (the key changed meanwhile) goes through `conditionalWrite`, from a fresh read.
    const first = known ? await this.#count(keyId, known) : LOST;
    if (first !== LOST) return first;
    return await conditionalWrite({
      what: `count a use of key ${keyId}`,
      attempts: known ? MAX_ATTEMPTS - 1 : MAX_ATTEMPTS,
      exhausted: () => null,
      load: () => this.#fromStorage(keyId, secret),
      apply: (entry) => this.#count(keyId, entry),
    });
  }

  /**
   * The key `token` names, when this instance remembers it with that secret, live now, and its
   * window's last count here plus the counts in flight here are under its limit (so a burst past
   * the limit starts at most about a limit's worth of work); else null. Reads no storage and
   * counts nothing: a preview for work a route starts while `admit` decides (the gateway's early
   * hold), never a decision.
   */
  recognise(token: string): AuthenticatedKey | null {
    const parsed = parseApiKey(token);
    const entry = parsed && this.#fromMemory(parsed.keyId, parsed.secret);
    const nowMs = this.#deps.clock();
    if (!entry || entry.liveUntilMs <= nowMs) return null;
    const last = entry.lastCount;
    const counted = last?.windowStartMs === windowAt(nowMs, MINUTE_MS).startMs ? last.count : 0;
    return counted + (entry.counting ?? 0) >= entry.key.rateLimitRpm ? null : entry.key;
  }

  /** One storage step counting a use of `entry`; LOST when the key changed since it was read. */
  async #count(keyId: string, entry: Remembered | null): Promise<Admission | null | Lost> {
    const nowMs = this.#deps.clock();
    if (!entry || entry.liveUntilMs <= nowMs) return null;
    const window = windowAt(nowMs, MINUTE_MS);
    const batch = `${keyId}/${entry.stored.version}/${window.startMs}`;
    entry.counting = (entry.counting ?? 0) + 1;
    let counted: Counted;
    try {
      counted = await this.#uses.submit(batch, { entry, window, nowMs });
    } finally {
      entry.counting--;
    }
    if (counted) {
      entry.lastCount = { windowStartMs: window.startMs, count: counted.count };
      return { key: entry.key, ...counted, window, nowMs };
    }
    this.#records.delete(keyId);
    return LOST;
  }

  /** The remembered key when `secret` is its secret; else storage must decide. */
  #fromMemory(keyId: string, secret: string): Remembered | null {
    const entry = this.#records.get(keyId);
    return entry && secretMatches(entry, secret, this.#remember) ? entry : null;
  }

  /**
   * The stored key (remembered from now on) when `secret` is its secret. A record already
   * remembered at the stored version is kept as is, so a wrong secret sent for a key id does not
   * make the next right one pay for the hash again.
   */
  async #fromStorage(keyId: string, secret: string): Promise<Remembered | null> {
    const stored = await this.#deps.keys.get(keyId);
    if (!stored) {
      this.#records.delete(keyId);
      return null;
    }
    const known = this.#records.get(keyId);
    const entry = known?.stored.version === stored.version ? known : remembered(stored);
    if (entry !== known) this.#records.set(keyId, entry);
    return secretMatches(entry, secret, this.#remember) ? entry : null;
  }

  /** One KeyUsageActor message (one storage step) for a batch of uses of one key version in one window. */
  async #countUses(uses: Use[]): Promise<Counted[]> {
    const { entry: { stored }, window, nowMs } = uses[0]!;
    const reply = await this.#deps.countKeyUse(stored.keyId, {
      orgId: stored.orgId,
      expectedVersion: stored.version,
      windowStartMs: window.startMs,
      windowMs: MINUTE_MS,
      hits: uses.length,
      atMs: nowMs,
    });
    if (!reply) return uses.map(() => null);
    const first = reply.count - uses.length + 1;
    return uses.map((_, i) => ({ ...reply, count: first + i }));
  }
}
