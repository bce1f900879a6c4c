/**
 * Group commit across callers: the calls made while earlier statements are in flight wait, and
 * the next statement takes them all (up to a size), so many callers share one statement, one
 * round trip and one durable commit. A call made when there is room starts a statement at once,
 * so a lone call waits for nothing. Private to storage/postgres.
 */

interface Waiting<I, R> {
  item: I;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export interface GroupOptions<I, R> {
  /**
   * Runs one group: resolves with one outcome per item, in order (a rejected outcome fails that
   * item alone); a rejection fails every item.
   */
  run(items: I[]): Promise<PromiseSettledResult<R>[]>;
  /** Items with the same key never share a group: a later one waits for the next group. */
  keyOf(item: I): string;
  /** How much of a group's size an item takes (default 1). */
  sizeOf?(item: I): number;
  /** A group's most size (an item larger than this goes alone). */
  maxSize: number;
  /** Groups running at once. */
  maxInFlight: number;
}

/** Calls grouped into shared statements (see the module comment). */
export class StatementGroups<I, R> {
  readonly #options: GroupOptions<I, R>;
  #waiting: Waiting<I, R>[] = [];
  #inFlight = 0;

  constructor(options: GroupOptions<I, R>) {
    this.#options = options;
  }

  /** Runs `item` in the next group that has room for it. */
  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#inFlight < this.#options.maxInFlight && this.#waiting.length > 0) {
      void this.#run(this.#take());
    }
  }

  /** The next group: waiting items in arrival order, one per key, up to `maxSize`. */
  #take(): Waiting<I, R>[] {
    const { keyOf, maxSize } = this.#options;
    const sizeOf = this.#options.sizeOf ?? (() => 1);
    const group: Waiting<I, R>[] = [];
    const left: Waiting<I, R>[] = [];
    const keys = new Set<string>();
    let size = 0;
    for (const waiting of this.#waiting) {
      const key = keyOf(waiting.item);
      const itemSize = sizeOf(waiting.item);
      const fits = group.length === 0 || size + itemSize <= maxSize;
      if (fits && !keys.has(key)) {
        group.push(waiting);
        keys.add(key);
        size += itemSize;
      } else {
        left.push(waiting);
      }
    }
    this.#waiting = left;
    return group;
  }

  async #run(group: Waiting<I, R>[]): Promise<void> {
    this.#inFlight++;
    try {
      const outcomes = await this.#options.run(group.map((waiting) => waiting.item));
      group.forEach((waiting, i) => {
        const outcome = outcomes[i]!;
        if (outcome.status === "fulfilled") waiting.resolve(outcome.value);
        else waiting.reject(outcome.reason);
      });
    } catch (error) {
      for (const waiting of group) waiting.reject(error);
    } finally {
      this.#inFlight--;
      this.#pump();
    }
  }
}

/**
 * True for an error that says the statement itself is wrong (SQLSTATE class 42: syntax, unknown
 * column; 0A: unsupported feature): a group's caller fails with it rather than retrying each item
 * alone, which would hide it.
 */
export function isStatementBug(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && (code.startsWith("42") || code.startsWith("0A"));
}
