import type { PGlite } from "@electric-sql/pglite";

const SSL_REQUEST = 80_877_103;
const GSS_REQUEST = 80_877_104;
const CANCEL_REQUEST = 80_877_102;
const [SYNC, QUERY, FLUSH, TERMINATE] = ["S", "Q", "H", "X"].map((c) => c.charCodeAt(0));

/** Turns on the one PGlite session, handed out first come, first served. */
class Turns {
  #busy = false;
  readonly #waiting: Array<() => void> = [];

  async take(): Promise<void> {
    if (!this.#busy) {
      this.#busy = true;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  give(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#busy = false;
  }
}

/**
 * Serves one PGlite to several PostgreSQL connections (several pools, as several service
 * instances would open) without mixing them up. PGlite is ONE backend session: pglite-socket's
 * server hands it each protocol message as it arrives, so two connections' Parse/Bind/Execute
 * interleave and one connection's unnamed portal runs another's statement ("portal does not
 * exist", or a wrong answer). Here each connection's messages up to its Sync (a simple Query, a
 * Flush) run as one unit, and a connection that opened a transaction keeps the session until it
 * ends it (or disconnects: its transaction is rolled back). So statements of different
 * connections interleave, as on a server, but never run at the same instant.
 */
export class PgliteServer {
  readonly #db: PGlite;
  readonly #listener: Deno.TcpListener;
  readonly #turns = new Turns();
  readonly #connections = new Set<Deno.TcpConn>();
  readonly #accepting: Promise<void>;

  constructor(db: PGlite) {
    this.#db = db;
    this.#listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    this.#accepting = this.#accept();
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.#listener.addr.port}/postgres`;
  }

  async close(): Promise<void> {
    this.#listener.close();
    for (const conn of this.#connections) conn.close();
    await this.#accepting;
  }

  async #accept(): Promise<void> {
    try {
      for await (const conn of this.#listener) {
        conn.setNoDelay(true);
        this.#connections.add(conn);
        this.#serve(conn).catch(() => {}).finally(() => this.#connections.delete(conn));
      }
    } catch {
      // The listener was closed.
    }
  }

  async #serve(conn: Deno.TcpConn): Promise<void> {
    const session = { started: false, owning: false, unit: [] as Uint8Array[] };
    let buffer: Uint8Array = new Uint8Array(0);
    const chunk = new Uint8Array(64 * 1024);
    try {
      for (let read = await conn.read(chunk); read !== null; read = await conn.read(chunk)) {
        buffer = concat(buffer, chunk.subarray(0, read));
        for (let length = messageLength(buffer, session.started); length > 0;) {
          const message = buffer.slice(0, length);
          buffer = buffer.subarray(length);
          if (!(await this.#receive(conn, session, message))) return;
          length = messageLength(buffer, session.started);
        }
      }
    } finally {
      if (session.owning) await this.#releaseAbandoned();
      try {
        conn.close();
      } catch {
        // Already closed by `close()`.
      }
    }
  }

  /** Handles one message; false when the connection is to be closed. */
  async #receive(
    conn: Deno.TcpConn,
    session: { started: boolean; owning: boolean; unit: Uint8Array[] },
    message: Uint8Array,
  ): Promise<boolean> {
    if (!session.started) {
      const code = new DataView(message.buffer).getInt32(4);
      if (code === SSL_REQUEST || code === GSS_REQUEST) return (await conn.write(new Uint8Array([78])), true);
      if (code === CANCEL_REQUEST) return false;
      session.started = true;
      await this.#run(conn, session, [message]);
      return true;
    }
    if (message[0] === TERMINATE) return false;
    session.unit.push(message);
    if (message[0] === SYNC || message[0] === QUERY || message[0] === FLUSH) {
      const unit = session.unit;
      session.unit = [];
      await this.#run(conn, session, unit);
    }
    return true;
  }

  /** Runs `unit` on the session in this connection's turn, then answers it. */
  async #run(conn: Deno.TcpConn, session: { owning: boolean }, unit: Uint8Array[]): Promise<void> {
    if (!session.owning) await this.#turns.take();
    const answers: Uint8Array[] = [];
    try {
      await this.#db.runExclusive(async () => {
        for (const message of unit) {
          await this.#db.execProtocolRawStream(message, { onRawData: (data) => answers.push(data.slice()) });
        }
      });
    } finally {
      session.owning = this.#db.isInTransaction();
      if (!session.owning) this.#turns.give();
    }
    await writeAll(conn, joined(answers));
  }

  async #releaseAbandoned(): Promise<void> {
    try {
      if (this.#db.isInTransaction()) await this.#db.exec("ROLLBACK");
    } finally {
      this.#turns.give();
    }
  }
}

/** The length of the first complete message in `buffer`, or 0 when it is not all there yet. */
function messageLength(buffer: Uint8Array, started: boolean): number {
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  // Before the startup message: untyped (length first); after it: a type byte, then the length.
  const length = started
    ? (buffer.length >= 5 ? 1 + view.getInt32(1) : 0)
    : (buffer.length >= 4 ? view.getInt32(0) : 0);
  return length > 0 && buffer.length >= length ? length : 0;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  return joined([a, b]);
}

function joined(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

async function writeAll(conn: Deno.TcpConn, data: Uint8Array): Promise<void> {
  for (let written = 0; written < data.length;) written += await conn.write(data.subarray(written));
}
