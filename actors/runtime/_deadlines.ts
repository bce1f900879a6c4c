/**
 * Expires the deadlines of waiting callers with ONE timer, armed for the earliest of them: a
 * timer (or a closure) per ask costs several times the ask itself. Times are real
 * (`performance.now()`), like every timer's. The timer holds the process open only while some
 * deadline is watched. `expire` is called once for each item whose deadline passed while watched.
 */
export class Deadlines<T extends { deadlineMs: number }> {
  readonly #watched = new Set<T>();
  readonly #expire: (item: T) => void;
  #timer: number | undefined;
  #timerAtMs = Infinity;

  constructor(expire: (item: T) => void) {
    this.#expire = expire;
  }

  add(item: T): void {
    if (this.#watched.size === 0 && this.#timer !== undefined) Deno.refTimer(this.#timer);
    this.#watched.add(item);
    if (item.deadlineMs < this.#timerAtMs) this.#arm(item.deadlineMs);
  }

  delete(item: T): void {
    if (!this.#watched.delete(item) || this.#watched.size > 0) return;
    // Nothing left to expire: the armed timer may fire (and find nothing), but not keep the process up.
    if (this.#timer !== undefined) Deno.unrefTimer(this.#timer);
  }

  #arm(atMs: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAtMs = atMs;
    // Deno's timers are numbers (the Node typings in scope say otherwise).
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, atMs - performance.now())) as unknown as number;
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAtMs = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const item of this.#watched) {
      if (item.deadlineMs > now) {
        next = Math.min(next, item.deadlineMs);
        continue;
      }
      this.#watched.delete(item);
      this.#expire(item);
    }
    if (next < Infinity) this.#arm(next);
  }
}
