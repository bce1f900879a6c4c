/**
 * A local fake of the Polymarket Gamma API's keyset market listing, speaking the real wire format:
 * `GET /markets/keyset?limit&after_cursor&closed&end_date_min&end_date_max&include_tag` answers
 * `{"markets": [...], "next_cursor": "..."}`, with `next_cursor` left out on the last page;
 * `closed` defaults to `false`; `limit` is capped at 100; `offset` is refused with 422; `tags` are
 * only included with `include_tag=true`. Failures can be queued for the next requests.
 */
import type { MarketSource, SourceMarket } from "../../actors/catalog/mod.ts";
import { generateGammaMarkets, type RawGammaMarket } from "./gamma_markets.ts";

export { generateGammaMarkets, type RawGammaMarket };

/** What the next request(s) get instead of a page. */
export type FakeGammaFailure =
  /** An error status, e.g. 429 with `retryAfter: "2"`, or 503. */
  | { kind: "status"; status: number; retryAfter?: string }
  /** A 200 whose body is this text (not JSON, or not a page). */
  | { kind: "body"; body: string }
  /** No answer for `ms` (or until the fake closes), then a normal page. */
  | { kind: "hang"; ms: number };

export interface FakeGammaOptions {
  /** Largest `limit` honoured; default 100 (Gamma's keyset maximum). */
  maxLimit?: number;
}

const DEFAULT_LIMIT = 20;

/** The running fake. */
export class FakeGamma {
  readonly url: string;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  #markets: readonly RawGammaMarket[];
  readonly #maxLimit: number;
  readonly #failures: FakeGammaFailure[] = [];
  readonly #filtered = new Map<string, readonly RawGammaMarket[]>();
  readonly #closing = new AbortController();
  readonly #queries: URLSearchParams[] = [];

  constructor(markets: readonly RawGammaMarket[], options: FakeGammaOptions = {}) {
    this.#markets = markets;
    this.#maxLimit = options.maxLimit ?? 100;
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => this.#handle(request),
    );
    this.url = `http://127.0.0.1:${this.#server.addr.port}`;
  }

  /** Requests received so far, failed ones included. */
  get requests(): number {
    return this.#queries.length;
  }

  /** The query string of every request, in order. */
  get queries(): readonly URLSearchParams[] {
    return this.#queries;
  }

  /** Serves `markets` from now on (a market closing, resolving, being disputed …). */
  setMarkets(markets: readonly RawGammaMarket[]): void {
    this.#markets = markets;
    this.#filtered.clear();
  }

  /** The next `count` requests fail this way (after any failures already queued). */
  failNext(count: number, failure: FakeGammaFailure): void {
    for (let i = 0; i < count; i++) this.#failures.push(failure);
  }

  async close(): Promise<void> {
    this.#closing.abort();
    await this.#server.shutdown();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    this.#queries.push(url.searchParams);
    const failure = this.#failures.shift();
    if (failure?.kind === "status") return failureResponse(failure.status, failure.retryAfter);
    if (failure?.kind === "body") {
      return new Response(failure.body, { headers: { "content-type": "application/json" } });
    }
    if (failure?.kind === "hang") await this.#hang(failure.ms);
    if (url.pathname !== "/markets/keyset") return json({ error: "not found" }, 404);
    if (url.searchParams.has("offset")) {
      return json({ error: "offset is not supported; use after_cursor" }, 422);
    }
    return this.#page(url.searchParams);
  }

  #page(query: URLSearchParams): Response {
    const markets = this.#matching(query);
    const start = decodeCursor(query.get("after_cursor"));
    if (start === null || start > markets.length) return json({ error: "invalid after_cursor" }, 400);
    const limit = Math.min(
      this.#maxLimit,
      Math.max(1, Number(query.get("limit") ?? DEFAULT_LIMIT) || DEFAULT_LIMIT),
    );
    const end = Math.min(markets.length, start + limit);
    const slice = markets.slice(start, end);
    const page = query.get("include_tag") === "true" ? slice : slice.map(withoutTags);
    return json(end < markets.length ? { markets: page, next_cursor: encodeCursor(end) } : { markets: page });
  }

  /** The markets a filter selects, in the order given; computed once per filter so deep paging stays cheap. */
  #matching(query: URLSearchParams): readonly RawGammaMarket[] {
    const closed = query.get("closed") === "true";
    const min = dateParam(query.get("end_date_min"), -Infinity);
    const max = dateParam(query.get("end_date_max"), Infinity);
    const key = `${closed}|${min}|${max}`;
    let markets = this.#filtered.get(key);
    if (markets === undefined) {
      markets = this.#markets.filter((market) => {
        if ((market.closed === true) !== closed) return false;
        const end = typeof market.endDate === "string" ? Date.parse(market.endDate) : Number.NaN;
        return (min === -Infinity && max === Infinity) || (end >= min && end <= max);
      });
      this.#filtered.set(key, markets);
    }
    return markets;
  }

  /** Waits `ms`, or less when the fake is closing (so `close()` never waits on a hung request). */
  #hang(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#closing.signal.addEventListener("abort", done, { once: true });
    });
  }
}

/** Starts a fake Gamma serving `markets` (raw objects, in the order given) on a free local port. */
export function startFakeGamma(
  markets: readonly RawGammaMarket[],
  options: FakeGammaOptions = {},
): FakeGamma {
  return new FakeGamma(markets, options);
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

function failureResponse(status: number, retryAfter: string | undefined): Response {
  const headers = new Headers({ "content-type": "application/json" });
  if (retryAfter !== undefined) headers.set("retry-after", retryAfter);
  return new Response(JSON.stringify({ error: `fake failure ${status}` }), { status, headers });
}

function withoutTags(market: RawGammaMarket): RawGammaMarket {
  const { tags: _tags, ...rest } = market;
  return rest;
}

function dateParam(value: string | null, fallback: number): number {
  if (value === null) return fallback;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? fallback : ms;
}

/** Gamma's cursors are opaque base64; this one carries the index of the next market. */
function encodeCursor(index: number): string {
  return btoa(JSON.stringify({ next: index }));
}

function decodeCursor(cursor: string | null): number | null {
  if (cursor === null || cursor === "") return 0;
  try {
    const value: unknown = JSON.parse(atob(cursor));
    const next = typeof value === "object" && value !== null && "next" in value ? value.next : null;
    return typeof next === "number" && Number.isSafeInteger(next) && next >= 0 ? next : null;
  } catch {
    return null;
  }
}

/** Everything a source serves in one sweep, following its cursors to the end. */
export async function readAllPages(
  source: MarketSource,
): Promise<{ markets: SourceMarket[]; malformed: number; pages: number }> {
  const markets: SourceMarket[] = [];
  let malformed = 0;
  let pages = 0;
  let cursor: string | null = null;
  do {
    const page = await source.fetchPage(cursor);
    pages++;
    markets.push(...page.markets);
    malformed += page.malformed.length;
    cursor = page.nextCursor;
  } while (cursor !== null);
  return { markets, malformed, pages };
}
