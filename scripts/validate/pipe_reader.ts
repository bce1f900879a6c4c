import { waitAtMost } from "./wait_at_most.ts";

/**
 * Reads a child process's pipe as it comes (so that the child never blocks on a full pipe),
 * keeping at most `limit` bytes: the first ones (`head`) or the last ones (`tail`).
 */
export class PipeReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #keep: "head" | "tail";
  readonly #limit: number;
  #chunks: Uint8Array[] = [];
  #kept = 0;
  #truncated = false;
  readonly #finished: Promise<void>;

  constructor(stream: ReadableStream<Uint8Array>, options: { keep: "head" | "tail"; limit: number }) {
    this.#reader = stream.getReader();
    this.#keep = options.keep;
    this.#limit = options.limit;
    this.#finished = this.#readAll();
  }

  /** More than `limit` bytes came. */
  get truncated(): boolean {
    return this.#truncated;
  }

  /**
   * Resolves at the end of the stream, or after `graceMs`, when reading stops and the rest is
   * dropped (a process that outlived the runner, outside its group, may hold the pipe open).
   */
  async done(graceMs: number): Promise<void> {
    if (!await waitAtMost(this.#finished, graceMs)) await this.#reader.cancel().catch(() => {});
  }

  /** What was kept, as UTF-8 text. */
  text(): string {
    const bytes = new Uint8Array(this.#kept);
    let at = 0;
    for (const chunk of this.#chunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    return new TextDecoder().decode(bytes);
  }

  async #readAll(): Promise<void> {
    try {
      for (let read = await this.#reader.read(); !read.done; read = await this.#reader.read()) {
        this.#take(read.value);
      }
    } catch {
      // Cancelled, or the pipe broke: what came so far is kept.
    }
  }

  #take(chunk: Uint8Array): void {
    if (this.#keep === "head") {
      const room = this.#limit - this.#kept;
      if (chunk.length > room) this.#truncated = true;
      if (room > 0) this.#push(chunk.subarray(0, room));
      return;
    }
    this.#push(chunk);
    while (this.#kept > this.#limit) {
      const first = this.#chunks[0]!;
      const over = this.#kept - this.#limit;
      this.#truncated = true;
      if (first.length <= over) {
        this.#chunks.shift();
        this.#kept -= first.length;
      } else {
        this.#chunks[0] = first.subarray(over);
        this.#kept -= over;
      }
    }
  }

  #push(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
    this.#kept += chunk.length;
  }
}
