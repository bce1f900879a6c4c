/**
 * At most `limit` holders at once; the others wait, first come first served. A waiter whose signal
 * aborts leaves the queue and rejects with the signal's reason.
 */
export class CallSlots {
  readonly #limit: number;
  #held = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError("A slot limit must be at least 1");
    this.#limit = limit;
  }

  /** Slots held now. */
  get held(): number {
    return this.#held;
  }

  /** Waits for a slot; resolves with the function that gives it back (once, however often called). */
  async take(signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    if (this.#held < this.#limit) {
      this.#held++;
      return this.#giver();
    }
    await new Promise<void>((resolve, reject) => {
      const granted = () => {
        signal.removeEventListener("abort", left);
        resolve();
      };
      const left = () => {
        this.#waiting.splice(this.#waiting.indexOf(granted), 1);
        reject(signal.reason);
      };
      signal.addEventListener("abort", left, { once: true });
      this.#waiting.push(granted);
    });
    return this.#giver();
  }

  /** Gives the slot to the first waiter (the count stays), or frees it. */
  #giver(): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#held--;
    };
  }
}
