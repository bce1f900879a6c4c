interface Pending<T, R> {
  item: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/**
 * Groups concurrent calls by key so that one storage round trip serves several of them. A call
 * never joins a round trip that started before it arrived: it starts one at once when none is
 * running for its key, else it waits for the next, which starts as soon as the current one ends
 * and takes every call waiting then. So each caller still gets an answer read after its call
 * began (as a mailbox would give), at one round trip per batch instead of one per call. Idle keys
 * hold no memory.
 */
export class Coalescer<T, R> {
  readonly #flush: (key: string, items: T[]) => Promise<R[]>;
  readonly #queues = new Map<string, Pending<T, R>[]>();
  readonly #running = new Set<string>();

  /** `flush(key, items)` must resolve with one result per item, in order. */
  constructor(flush: (key: string, items: T[]) => Promise<R[]>) {
    this.#flush = flush;
  }

  submit(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.#queues.get(key);
      if (queue) queue.push({ item, resolve, reject });
      else this.#queues.set(key, [{ item, resolve, reject }]);
      if (!this.#running.has(key)) void this.#drain(key);
    });
  }

  /** Keys with calls waiting or in flight. */
  get size(): number {
    return new Set([...this.#queues.keys(), ...this.#running]).size;
  }

  async #drain(key: string): Promise<void> {
    this.#running.add(key);
    try {
      for (let batch = this.#take(key); batch.length > 0; batch = this.#take(key)) {
        try {
          const results = await this.#flush(key, batch.map((pending) => pending.item));
          batch.forEach((pending, i) => pending.resolve(results[i]!));
        } catch (error) {
          for (const pending of batch) pending.reject(error);
        }
      }
    } finally {
      this.#running.delete(key);
    }
  }

  #take(key: string): Pending<T, R>[] {
    const batch = this.#queues.get(key) ?? [];
    this.#queues.delete(key);
    return batch;
  }
}
