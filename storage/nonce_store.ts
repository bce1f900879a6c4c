export interface ConsumeOptions {
  /** How long the nonce stays used, on the storage's clock (at least twice the signature window). */
  ttlMs: number;
}

/**
 * Single-use signature nonces per hotkey, shared by every service instance. Expiry is on the
 * storage's clock (PostgreSQL: the server's; Deno KV: the host's, see docs/runtime.md); an expired
 * nonce counts as unused, which is safe because a request old enough for its nonce to have
 * expired fails the signature's timestamp window first.
 */
export interface NonceStore {
  /**
   * Marks `nonce` used by `hotkey` for `ttlMs`, atomically: true for the first use, false while an
   * earlier use has not expired (a replay), also when the uses race on different instances.
   */
  consume(hotkey: string, nonce: string, options: ConsumeOptions): Promise<boolean>;
  /** Deletes expired nonces (a periodic job); returns how many (0 where storage expires them itself). */
  purgeExpired(): Promise<number>;
}
