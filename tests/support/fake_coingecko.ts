/**
 * A local fake of CoinGecko's public API v3, speaking its wire format for the one call the service
 * makes: `GET /api/v3/simple/price?ids=<ids>&vs_currencies=<currencies>` → `{"<id>":{"<currency>":n}}`
 * for every id it knows (an unknown id is left out; `{}` when none is known), 400 with CoinGecko's
 * error body when a parameter is missing, 404 for any other path. Failures can be queued for the
 * next requests: an HTTP status (429 with `Retry-After` and CoinGecko's rate-limit body, 500, …),
 * a 200 whose body is garbage, or a hang.
 */

/** What the next request(s) get instead of the normal answer. */
export type FakeCoinGeckoFailure =
  /** An HTTP error status; 429 gets CoinGecko's rate-limit body. */
  | { kind: "status"; status: number; retryAfter?: string }
  /** A 200 whose body is this text (not JSON, or JSON of another shape). */
  | { kind: "body"; body: string }
  /** No answer for `ms` (or until the fake closes), then the normal answer. */
  | { kind: "hang"; ms: number };

/** One request received. */
export interface FakeCoinGeckoRequest {
  path: string;
  query: Record<string, string>;
  userAgent: string | null;
}

/** The running fake. */
export class FakeCoinGecko {
  /** The API root to configure (`FGW_COINGECKO_URL`): `http://127.0.0.1:<port>/api/v3`. */
  readonly url: string;
  readonly requests: FakeCoinGeckoRequest[] = [];
  /** id → vs currency → price. */
  readonly prices: Map<string, Record<string, number>>;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #failures: FakeCoinGeckoFailure[] = [];
  readonly #closing = new AbortController();

  constructor(options: { taoUsd?: number } = {}) {
    this.prices = new Map([["bittensor", { usd: options.taoUsd ?? 412.5 }]]);
    this.#server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (r) => this.#handle(r));
    this.url = `http://127.0.0.1:${this.#server.addr.port}/api/v3`;
  }

  /** Sets TAO's USD price from now on. */
  setTaoUsd(usd: number): void {
    this.prices.set("bittensor", { usd });
  }

  /** The next `count` requests fail this way (after any failures already queued). */
  failNext(count: number, failure: FakeCoinGeckoFailure): void {
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
    this.requests.push({
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      userAgent: request.headers.get("user-agent"),
    });
    const failure = this.#failures.shift();
    if (failure?.kind === "hang") await this.#hang(failure.ms);
    if (failure?.kind === "status") return statusResponse(failure.status, failure.retryAfter);
    if (failure?.kind === "body") {
      return new Response(failure.body, { headers: { "content-type": "application/json" } });
    }
    if (request.method !== "GET" || url.pathname !== "/api/v3/simple/price") {
      return Response.json({ error: "Incorrect path. Please check https://www.coingecko.com/api/" }, {
        status: 404,
      });
    }
    return this.#simplePrice(url.searchParams);
  }

  #simplePrice(query: URLSearchParams): Response {
    const ids = listOf(query.get("ids"));
    const currencies = listOf(query.get("vs_currencies"));
    if (ids.length === 0 || currencies.length === 0) {
      const missing = ids.length === 0 ? "ids" : "vs_currencies";
      return Response.json({ error: `Missing parameter ${missing}` }, { status: 400 });
    }
    const body: Record<string, Record<string, number>> = {};
    for (const id of ids) {
      const known = this.prices.get(id);
      if (!known) continue;
      const quoted = Object.entries(known).filter(([currency]) => currencies.includes(currency));
      body[id] = Object.fromEntries(quoted);
    }
    return Response.json(body);
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

/** Starts a fake CoinGecko on a free local port. */
export function startFakeCoinGecko(options: { taoUsd?: number } = {}): FakeCoinGecko {
  return new FakeCoinGecko(options);
}

function listOf(value: string | null): string[] {
  return (value ?? "").split(",").map((item) => item.trim().toLowerCase()).filter((item) => item !== "");
}

function statusResponse(status: number, retryAfter?: string): Response {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (retryAfter !== undefined) headers["retry-after"] = retryAfter;
  const body = status === 429
    ? {
      status: {
        error_code: 429,
        error_message:
          "You've exceeded the Rate Limit. Please visit https://www.coingecko.com/en/api/pricing",
      },
    }
    : { error: `upstream status ${status}` };
  return Response.json(body, { status, headers });
}
