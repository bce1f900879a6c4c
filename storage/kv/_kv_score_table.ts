import type { Fence } from "../job_lease_store.ts";
import type { ScoreTable, ScoreTableRow } from "../score_store.ts";
import { commitFenced, type KvMutation } from "./_kv_fenced_batches.ts";

/** Where the table stands: the generation whose chunks hold its rows. */
interface TableHead {
  computedAtMs: number;
  windowDays: number;
  generation: string;
  chunks: number;
}

const HEAD: Deno.KvKey = ["score", "table"];
const ROWS: Deno.KvKey = ["score", "table_rows"];
/** Rows per chunk: a chunk stays well under Deno KV's 64 KiB per value. */
const ROWS_PER_CHUNK = 64;
/** Times a read starts over after a newer table removed the chunks it was reading. */
const MAX_READS = 5;

/**
 * The score table in Deno KV: a write puts a new generation's chunks first (unreferenced), then
 * points the head at it, then deletes older generations, each step fenced; readers follow the
 * head, so they see one whole table.
 */
export class KvScoreTable {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async put(table: ScoreTable, fence: Fence): Promise<boolean> {
    const generation = crypto.randomUUID();
    const chunks: ScoreTableRow[][] = [];
    for (let at = 0; at < table.rows.length; at += ROWS_PER_CHUNK) {
      chunks.push(table.rows.slice(at, at + ROWS_PER_CHUNK));
    }
    const head: TableHead = {
      computedAtMs: table.computedAtMs,
      windowDays: table.windowDays,
      generation,
      chunks: chunks.length,
    };
    const writes: KvMutation[] = chunks.map((rows, i) => ({ key: [...ROWS, generation, i], value: rows }));
    // Chunks in their own batches before the head: the head never points at a missing chunk.
    if (!await commitFenced(this.#kv, fence, writes)) return false;
    if (!await commitFenced(this.#kv, fence, [{ key: HEAD, value: head }])) return false;
    const stale: KvMutation[] = [];
    for await (const { key } of this.#kv.list({ prefix: ROWS }, { batchSize: 500 })) {
      if (key[2] !== generation) stale.push({ key });
    }
    await commitFenced(this.#kv, fence, stale);
    return true;
  }

  async get(): Promise<ScoreTable | null> {
    for (let attempt = 0; attempt < MAX_READS; attempt++) {
      const head = (await this.#kv.get<TableHead>(HEAD)).value;
      if (head === null) return null;
      const chunks: ScoreTableRow[][] = [];
      for await (const entry of this.#kv.list<ScoreTableRow[]>({ prefix: [...ROWS, head.generation] })) {
        chunks.push(entry.value);
      }
      if (chunks.length !== head.chunks) continue;
      return { computedAtMs: head.computedAtMs, windowDays: head.windowDays, rows: chunks.flat() };
    }
    throw new Error("Cannot read the score table: it kept changing");
  }
}
