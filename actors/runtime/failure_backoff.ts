/**
 * When a periodic job that reads an upstream runs next: every `intervalMs` while it succeeds;
 * after failures sooner, backing off — `retryBaseMs`, doubled per failure in a row, never more than
 * `intervalMs` (`retryBaseMs` is itself capped at the interval).
 */
export class FailureBackoff {
  readonly #intervalMs: number;
  readonly #retryBaseMs: number;
  #failures = 0;

  constructor(intervalMs: number, options: { retryBaseMs?: number | undefined } = {}) {
    this.#intervalMs = intervalMs;
    this.#retryBaseMs = Math.min(options.retryBaseMs ?? 15_000, intervalMs);
  }

  /** Failures in a row since the last success. */
  get failures(): number {
    return this.#failures;
  }

  /** The time until the next run. */
  nextMs(): number {
    if (this.#failures === 0) return this.#intervalMs;
    return Math.min(this.#intervalMs, this.#retryBaseMs * 2 ** (this.#failures - 1));
  }

  /** Records a failed run; returns the failures in a row, this one included. */
  failed(): number {
    return ++this.#failures;
  }

  /** Records a successful run. */
  succeeded(): void {
    this.#failures = 0;
  }
}
