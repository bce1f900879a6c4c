/**
 * Polymarket Gamma adapter for the `MarketSource` port.
 *
 * Wire protocol (Gamma "List markets (keyset pagination)", `GET /markets/keyset`): query `limit`
 * (at most 100), `after_cursor` (the previous page's `next_cursor`), `closed` (Gamma defaults it
 * to `false`), `end_date_min` (ISO 8601), `include_tag=true` (adds `tags` to each market). The
 * answer is `{"markets": [...], "next_cursor": "..."}`; `next_cursor` is absent on the last page.
 * `offset` is rejected by this endpoint, and the legacy offset-paged `GET /markets` is deprecated.
 *
 * One sweep reads two keyset streams, one after the other, behind one opaque cursor:
 * 1. every open market (`closed=false`): prices, liquidity and volume of the live catalog;
 * 2. closed markets whose end date is within `closedLookbackMs` (default 30 days) of the sweep
 *    (`closed=true&end_date_min=…`): this is where resolutions appear. Reading all closed markets
 *    ever would page through Gamma's whole history on every sweep; a market that closes early
 *    still has its (later) end date inside the window, and 30 days covers the UMA dispute rounds.
 */
import { base64urlnopad } from "@scure/base";
import { z } from "zod";
import { type Clock, DAY_MS, HttpClient, isoAt, systemClock } from "../../kernel/mod.ts";
import { type HttpClientOptions, UpstreamError } from "../../kernel/mod.ts";
import { decodeGammaMarkets, POLYMARKET_SOURCE } from "./gamma_decode.ts";
import { type MarketPage, type MarketSource, MarketSourceError } from "./market_source.ts";

/** Gamma's largest `limit` on `/markets/keyset`. */
export const GAMMA_MAX_PAGE_SIZE = 100;

/**
 * Requests go through the shared `HttpClient` (upstream name `gamma`): `fetch`, `timeoutMs`
 * (per attempt, headers and body; default 15 s), `backoffBaseMs`, `maxDelayMs`, `sleep`, `random`
 * and `observer` are its options.
 */
export interface GammaMarketSourceOptions extends
  Pick<
    HttpClientOptions,
    "fetch" | "timeoutMs" | "backoffBaseMs" | "maxDelayMs" | "sleep" | "random" | "observer"
  > {
  /** Gamma API root, e.g. `https://gamma-api.polymarket.com`. */
  baseUrl: string;
  /** Markets per request, 1..100; default 100. */
  pageSize?: number;
  /** Retries after the first attempt of a request; default 4. */
  maxRetries?: number;
  /** Closed markets are read back to this far before the sweep, by end date; default 30 days. */
  closedLookbackMs?: number;
  /** Time source for the closed-market window and HTTP-date `Retry-After`; default the wall clock. */
  clock?: Clock;
}

/** Where a sweep stands: which stream, and Gamma's cursor inside it. */
const positionSchema = z.object({
  phase: z.enum(["open", "closed"]),
  after: z.string().min(1).nullable(),
  endDateMin: z.string().nullable(),
});
type Position = z.infer<typeof positionSchema>;

const keysetPageSchema = z.object({
  markets: z.array(z.unknown()),
  next_cursor: z.string().nullish(),
});

/** Reads Polymarket markets from the Gamma API, open markets first, then recently closed ones. */
export class GammaMarketSource implements MarketSource {
  readonly name = POLYMARKET_SOURCE;
  readonly #baseUrl: URL;
  readonly #pageSize: number;
  readonly #http: HttpClient;
  readonly #closedLookbackMs: number;
  readonly #clock: Clock;

  constructor(options: GammaMarketSourceOptions) {
    this.#baseUrl = new URL(options.baseUrl.endsWith("/") ? options.baseUrl : `${options.baseUrl}/`);
    this.#pageSize = checkedInteger(
      "pageSize",
      options.pageSize ?? GAMMA_MAX_PAGE_SIZE,
      1,
      GAMMA_MAX_PAGE_SIZE,
    );
    this.#closedLookbackMs = options.closedLookbackMs ?? 30 * DAY_MS;
    this.#clock = options.clock ?? systemClock;
    this.#http = new HttpClient({
      ...options,
      upstream: "gamma",
      retries: checkedInteger("maxRetries", options.maxRetries ?? 4, 0, 100),
      clock: this.#clock,
    });
  }

  async fetchPage(cursor: string | null, signal?: AbortSignal): Promise<MarketPage> {
    const position = cursor === null
      ? { phase: "open" as const, after: null, endDateMin: null }
      : decodeCursor(cursor);
    const body = await this.#getJson(this.#pageUrl(position), signal);
    const page = keysetPageSchema.safeParse(body);
    if (!page.success) {
      throw new MarketSourceError("Cannot read Gamma markets: the answer is not a keyset page of markets");
    }
    const next = page.data.next_cursor || null;
    if (next !== null && next === position.after) {
      throw new MarketSourceError("Cannot page Gamma markets: the next cursor repeats the current one");
    }
    return { ...decodeGammaMarkets(page.data.markets), nextCursor: this.#nextCursor(position, next) };
  }

  #pageUrl(position: Position): URL {
    const url = new URL("markets/keyset", this.#baseUrl);
    url.searchParams.set("limit", String(this.#pageSize));
    url.searchParams.set("closed", String(position.phase === "closed"));
    url.searchParams.set("include_tag", "true");
    if (position.endDateMin !== null) url.searchParams.set("end_date_min", position.endDateMin);
    if (position.after !== null) url.searchParams.set("after_cursor", position.after);
    return url;
  }

  /** The open stream continues, then hands over to the closed stream; null after the closed stream. */
  #nextCursor(position: Position, gammaCursor: string | null): string | null {
    if (gammaCursor !== null) return encodeCursor({ ...position, after: gammaCursor });
    if (position.phase === "closed") return null;
    const endDateMin = isoAt(this.#clock() - this.#closedLookbackMs);
    return encodeCursor({ phase: "closed", after: null, endDateMin });
  }

  /** GET through the retrying client: 408/429/5xx, timeouts and network errors are retried. */
  async #getJson(url: URL, signal: AbortSignal | undefined): Promise<unknown> {
    let response: Response;
    try {
      const headers = { accept: "application/json" };
      response = await this.#http.request(url, { headers, ...(signal ? { signal } : {}) });
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      throw new MarketSourceError(`Cannot read Gamma markets: ${error.detail}`, { cause: error });
    }
    return parseJsonBody(await response.text());
  }
}

function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MarketSourceError("Cannot read Gamma markets: the answer is not JSON", { cause: error });
  }
}

function encodeCursor(position: Position): string {
  return base64urlnopad.encode(new TextEncoder().encode(JSON.stringify(position)));
}

function decodeCursor(cursor: string): Position {
  try {
    const json: unknown = JSON.parse(new TextDecoder().decode(base64urlnopad.decode(cursor)));
    return positionSchema.parse(json);
  } catch (error) {
    throw new TypeError(`Invalid market cursor: ${cursor.slice(0, 40)}`, { cause: error });
  }
}

function checkedInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`Invalid ${name}: expected an integer in ${min}..${max}, got ${value}`);
  }
  return value;
}
