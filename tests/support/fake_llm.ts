/**
 * The server loop the fake LLM providers share (fake_openai.ts, fake_anthropic.ts): it records
 * each request, answers queued failure modes first, and leaves the vendor's wire format (paths,
 * headers, bodies, error shapes) to a `WireFormat`.
 */

/** How the fake answers a request. */
export type FakeLlmMode =
  /** A completion with usage. */
  | "success"
  /** A completion without any usage figures. */
  | "no_usage"
  /** 429 with `Retry-After`. */
  | "rate_limited"
  /** 500 with the vendor's error body. */
  | "server_error"
  /** No answer until the fake closes. */
  | "slow"
  /** A completion with usage, answered once `releaseHeld()` is called (or the fake closes). */
  | "held"
  /** 200 whose body is not JSON. */
  | "garbage"
  /** 200 JSON that is not a completion. */
  | "wrong_shape"
  /** 401 as for a bad key, whatever key was sent. */
  | "unauthorized";

/** A request the fake received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Headers;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: Record<string, unknown> | undefined;
}

/** Token counts the fake reports for a request it completes. */
export interface FakeUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface FakeLlmOptions {
  /** The key the fake accepts; any other → 401. */
  apiKey: string;
  /** The models it serves; any other → 404. */
  models: readonly string[];
  /** Token counts reported; default ⌈bytes / 4⌉ of the prompt contents and of the output. */
  usage?: (body: Record<string, unknown>, output: string) => FakeUsage;
  /** `Retry-After` of a 429; default "7"; null sends none. */
  retryAfter?: string | null;
}

/** What a vendor's wire format decides; `null` from `refuse` lets the request through. */
export interface WireFormat {
  path: string;
  /** An answer for a request the vendor would refuse (bad key, unknown model, bad body), or null. */
  refuse(request: RecordedRequest, options: FakeLlmOptions): Response | null;
  /** The completion body; `usage` null leaves the usage out. */
  success(request: RecordedRequest, output: string, usage: FakeUsage | null): unknown;
  /** An error answer of the vendor for `status`. */
  error(status: number, message: string): Response;
}

const encoder = new TextEncoder();

/** ⌈UTF-8 bytes / 4⌉: the fakes' default token count. */
export function quarterTokens(text: string): number {
  return Math.ceil(encoder.encode(text).length / 4);
}

/** A JSON response. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A fake provider on a free local port. */
export class FakeLlmServer {
  /** The server's root, e.g. `http://127.0.0.1:41234`. */
  readonly origin: string;
  readonly requests: RecordedRequest[] = [];
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #wire: WireFormat;
  readonly #options: FakeLlmOptions;
  readonly #queued: FakeLlmMode[] = [];
  readonly #held: (() => void)[] = [];
  readonly #closing = new AbortController();

  constructor(wire: WireFormat, options: FakeLlmOptions) {
    this.#wire = wire;
    this.#options = options;
    this.#server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (r) => this.#handle(r));
    this.origin = `http://127.0.0.1:${this.#server.addr.port}`;
  }

  /** The next `count` requests are answered in `mode` (after any modes already queued). */
  respondNext(mode: FakeLlmMode, count = 1): void {
    for (let i = 0; i < count; i++) this.#queued.push(mode);
  }

  /** Lets every request waiting in the "held" mode be answered; returns how many were waiting. */
  releaseHeld(): number {
    const waiting = this.#held.splice(0);
    for (const release of waiting) release();
    return waiting.length;
  }

  async close(): Promise<void> {
    this.releaseHeld();
    this.#closing.abort();
    await this.#server.shutdown();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #handle(request: Request): Promise<Response> {
    const recorded = await record(request);
    this.requests.push(recorded);
    if (recorded.method !== "POST" || recorded.path !== this.#wire.path) {
      return this.#wire.error(404, `No route ${recorded.method} ${recorded.path}`);
    }
    const mode = this.#queued.shift() ?? "success";
    if (mode === "slow") return await this.#hang();
    if (mode === "held") await new Promise<void>((release) => this.#held.push(release));
    if (mode === "garbage") return new Response("<html>502 Bad Gateway</html>", { status: 200 });
    if (mode === "wrong_shape") return json(200, { object: "list", data: [] });
    if (mode === "unauthorized") return this.#wire.error(401, "Invalid API key");
    if (mode === "server_error") {
      return this.#wire.error(500, "The server had an error processing your request");
    }
    if (mode === "rate_limited") {
      const response = this.#wire.error(429, "Rate limit reached; please retry later");
      const retryAfter = this.#options.retryAfter === undefined ? "7" : this.#options.retryAfter;
      if (retryAfter !== null) response.headers.set("retry-after", retryAfter);
      return response;
    }
    const refusal = this.#wire.refuse(recorded, this.#options);
    if (refusal) return refusal;
    return json(200, this.#completion(recorded, mode !== "no_usage"));
  }

  #completion(request: RecordedRequest, withUsage: boolean): unknown {
    const body = request.body ?? {};
    const messages = (body.messages ?? []) as { role: string; content: string }[];
    const lastUser = messages.findLast((m) => m.role === "user")?.content ?? "";
    const output = `reply: ${lastUser}`;
    const usage = this.#options.usage?.(body, output) ?? {
      promptTokens: messages.reduce((n, m) => n + quarterTokens(m.content), 0) +
        quarterTokens(typeof body.system === "string" ? body.system : ""),
      completionTokens: quarterTokens(output),
    };
    return this.#wire.success(request, output, withUsage ? usage : null);
  }

  /** Answers nothing until the fake closes (the client has given up long before). */
  async #hang(): Promise<Response> {
    const closing = this.#closing.signal;
    await new Promise<void>((resolve) => closing.addEventListener("abort", () => resolve(), { once: true }));
    return this.#wire.error(500, "gave up");
  }
}

async function record(request: Request): Promise<RecordedRequest> {
  const text = await request.text();
  let body: Record<string, unknown> | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { method: request.method, path: new URL(request.url).pathname, headers: request.headers, body };
}
