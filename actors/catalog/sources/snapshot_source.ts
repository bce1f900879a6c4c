/**
 * Offline adapter for the `MarketSource` port: a JSON snapshot of Gamma markets on disk.
 *
 * File format: `{"capturedAt": "<ISO 8601>", "markets": [<Gamma market objects>]}`, each market in
 * exactly the shape `GET /markets/keyset` serves (JSON-encoded `outcomes`, `outcomePrices`,
 * `clobTokenIds`, …), decoded by the same decoder as the live Gamma adapter.
 *
 * The file is read again at the start of every pass (the first page, cursor null), as every
 * file adapter does (docs/architecture.md, "External sources"): editing it (resolving a market, adding one)
 * is how an operator or a test changes what the service sees. The pages of one pass come from the read its
 * first page made.
 */
import { z } from "zod";
import { isoAt } from "../../kernel/mod.ts";
import { decodeGammaMarkets, POLYMARKET_SOURCE } from "./gamma_decode.ts";
import { parseGammaTimestamp } from "./gamma_timestamp.ts";
import { type MarketPage, type MarketSource, MarketSourceError, type SourceMarket } from "./market_source.ts";

export interface SnapshotMarketSourceOptions {
  /** The snapshot file. */
  path: string | URL;
  /** Markets per page; default 500. */
  pageSize?: number;
  /**
   * Makes the snapshot look captured at this instant (ms since the epoch, typically the service
   * clock). Every timestamp of every decoded market — `startDate`, `endDate` and
   * `resolution.resolvedAt` — is shifted by `rebaseTo() - capturedAt`, so a market that ended two
   * days before capture ends two days before "now", and one ending in three days still does.
   * The shift is taken when this process first reads a `capturedAt` and kept while the file keeps
   * that `capturedAt` (re-reads of an edited file do not move its dates): time passes normally for
   * the demo, and live markets approach their end dates. A file with another `capturedAt` is
   * rebased anew, and so is every file after a restart (the shift is this process's, not stored).
   * Without `rebaseTo`, timestamps are served as stored.
   */
  rebaseTo?: () => number;
  /**
   * The source name the markets are reported under; default "polymarket". A fallback snapshot
   * uses its own name (e.g. "snapshot") so its sample markets are never taken for live ones.
   */
  sourceName?: string;
}

const snapshotSchema = z.object({
  capturedAt: z.string(),
  markets: z.array(z.unknown()),
});

interface LoadedSnapshot {
  /** The file's modification time and size when it was read (`fileStamp`). */
  stamp: string;
  raws: readonly unknown[];
  /** Milliseconds added to every timestamp (0 without rebasing). */
  shiftMs: number;
}

/** Serves the markets of a snapshot file, a page at a time; the cursor is the offset of the next page. */
export class SnapshotMarketSource implements MarketSource {
  readonly name: string;
  readonly #path: string | URL;
  readonly #pageSize: number;
  readonly #rebaseTo: (() => number) | undefined;
  /** The read the current pass pages through. */
  #loading: Promise<LoadedSnapshot> | null = null;
  /** The last successful read: a pass over an unchanged file takes it again instead of parsing. */
  #last: LoadedSnapshot | null = null;
  /** The shift taken for a `capturedAt` (see `rebaseTo`). */
  #shift: { capturedAtMs: number; shiftMs: number } | null = null;

  constructor(options: SnapshotMarketSourceOptions) {
    const pageSize = options.pageSize ?? 500;
    if (!Number.isInteger(pageSize) || pageSize < 1) {
      throw new RangeError(`Invalid pageSize: expected a positive integer, got ${pageSize}`);
    }
    this.#path = options.path;
    this.#pageSize = pageSize;
    this.#rebaseTo = options.rebaseTo;
    this.name = options.sourceName ?? POLYMARKET_SOURCE;
  }

  async fetchPage(cursor: string | null, signal?: AbortSignal): Promise<MarketPage> {
    signal?.throwIfAborted();
    const start = cursor === null ? 0 : parseOffset(cursor);
    const snapshot = await this.#load(cursor === null);
    const raws = snapshot.raws.slice(start, start + this.#pageSize);
    const page = decodeGammaMarkets(raws);
    const end = start + raws.length;
    return {
      markets: page.markets.map((market) => ({
        ...shiftMarket(market, snapshot.shiftMs),
        source: this.name,
      })),
      malformed: page.malformed,
      nextCursor: end < snapshot.raws.length ? String(end) : null,
    };
  }

  /** The file as last read; read again when `fresh` (a pass starts) or after a failed read. */
  #load(fresh: boolean): Promise<LoadedSnapshot> {
    if (fresh || this.#loading === null) {
      const loading = this.#read(this.#last);
      loading.then((loaded) => this.#last = loaded, () => {
        if (this.#loading === loading) this.#loading = null;
      });
      this.#loading = loading;
    }
    return this.#loading;
  }

  /**
   * The file's content; `previous` again when the file's modification time and size are those it
   * was read at (a large file is parsed only when it changed, not at every pass).
   */
  async #read(previous: LoadedSnapshot | null): Promise<LoadedSnapshot> {
    const where = String(this.#path);
    let text: string;
    let stamp: string;
    try {
      stamp = await fileStamp(this.#path);
      if (previous?.stamp === stamp) return previous;
      text = await Deno.readTextFile(this.#path);
    } catch (error) {
      throw new MarketSourceError(`Cannot read market snapshot: ${where}`, { cause: error });
    }
    const snapshot = parseSnapshot(text, where);
    const capturedAtMs = parseGammaTimestamp(snapshot.capturedAt);
    if (capturedAtMs === null) {
      throw new MarketSourceError(`Cannot read market snapshot: capturedAt is not a timestamp in ${where}`);
    }
    return { stamp, raws: snapshot.markets, shiftMs: this.#shiftFor(capturedAtMs) };
  }

  #shiftFor(capturedAtMs: number): number {
    if (this.#rebaseTo === undefined) return 0;
    if (this.#shift?.capturedAtMs !== capturedAtMs) {
      this.#shift = { capturedAtMs, shiftMs: this.#rebaseTo() - capturedAtMs };
    }
    return this.#shift.shiftMs;
  }
}

/** What tells one version of the file from another without reading it: modification time and size. */
async function fileStamp(path: string | URL): Promise<string> {
  const info = await Deno.stat(path);
  return `${info.mtime?.getTime() ?? "none"}:${info.size}`;
}

function parseSnapshot(text: string, where: string): z.infer<typeof snapshotSchema> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new MarketSourceError(`Cannot read market snapshot: not JSON in ${where}`, { cause: error });
  }
  const parsed = snapshotSchema.safeParse(json);
  if (!parsed.success) {
    throw new MarketSourceError(`Cannot read market snapshot: expected {capturedAt, markets} in ${where}`);
  }
  return parsed.data;
}

function parseOffset(cursor: string): number {
  const offset = /^\d{1,15}$/.test(cursor) ? Number(cursor) : Number.NaN;
  if (!Number.isSafeInteger(offset)) throw new TypeError(`Invalid market cursor: ${cursor.slice(0, 40)}`);
  return offset;
}

function shiftMarket(market: SourceMarket, shiftMs: number): SourceMarket {
  if (shiftMs === 0) return market;
  const shift = (iso: string) => isoAt(Date.parse(iso) + shiftMs);
  const { resolution } = market;
  return {
    ...market,
    startDate: shift(market.startDate),
    endDate: shift(market.endDate),
    resolution: {
      ...resolution,
      resolvedAt: resolution.resolvedAt === null ? null : shift(resolution.resolvedAt),
    },
  };
}
