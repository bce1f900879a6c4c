/**
 * A local fake of a Subtensor node's JSON-RPC over HTTP (docs/validators.md), speaking the real wire format:
 * `POST /` with a JSON-RPC 2.0 request answers `{"jsonrpc":"2.0","id":…,"result":…}` or
 * `{"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…}}`. Methods:
 * - `state_call` `["NeuronInfoRuntimeApi_get_neurons_lite", "0x<netuid u16 LE>", blockHash?]` →
 *   hex of the SCALE payload set for that subnet (`0x00`, an empty Vec, for any other subnet);
 * - `neuronInfo_getNeuronsLite` `[netuid, blockHash?]` → the same payload as an array of byte numbers;
 * - `state_call` `[fn, "0x<netuid u16 LE>", blockHash?]` for a runtime API function given bytes with
 *   `setStateCall` (e.g. `SwapRuntimeApi_current_alpha_price`) → hex of those bytes; for a subnet
 *   without bytes, error 4003 as a node whose runtime call fails;
 * - `chain_getHeader` → `{number: "0x…", …}`; `chain_getBlockHash` → a 32-byte hash;
 * - anything else → error -32601 "Method not found"; a body that is not JSON → -32700.
 * Failures can be queued for the next requests (or the next calls of one method): a JSON-RPC error
 * object, an HTTP status, a body that is not JSON-RPC, a hang, or another `result`.
 */
import { hex } from "@scure/base";

/** What the next request(s) get instead of the normal answer. */
export type FakeSubtensorFailure =
  /** A JSON-RPC error object (HTTP 200), e.g. `{code: 4003, message: "Client error: …"}`. */
  | { kind: "rpc_error"; code: number; message: string }
  /** An HTTP error status with a text body, e.g. 503 with `retryAfter: "1"`. */
  | { kind: "status"; status: number; retryAfter?: string }
  /** A 200 whose body is this text (garbage, or JSON that is not a JSON-RPC answer). */
  | { kind: "body"; body: string }
  /** A normal JSON-RPC answer whose `result` is this value (bad hex, a number, …). */
  | { kind: "result"; result: unknown }
  /** No answer for `ms` (or until the fake closes), then the normal answer. */
  | { kind: "hang"; ms: number };

/** One JSON-RPC call received. */
export interface FakeSubtensorCall {
  method: string;
  params: unknown[];
}

export interface FakeSubtensorOptions {
  /** netuid → the SCALE bytes `get_neurons_lite` answers for it. */
  payloads?: Record<number, Uint8Array>;
  /** The best block number `chain_getHeader` reports; default 6,852,690. */
  block?: number;
}

const NEURONS_LITE = "NeuronInfoRuntimeApi_get_neurons_lite";

/** The running fake. */
export class FakeSubtensor {
  readonly url: string;
  readonly calls: FakeSubtensorCall[] = [];
  block: number;
  readonly #payloads: Map<number, Uint8Array>;
  /** Runtime API function → netuid → the SCALE bytes its `state_call` answers. */
  readonly #stateCalls = new Map<string, Map<number, Uint8Array>>();
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #failures: { failure: FakeSubtensorFailure; method: string | undefined }[] = [];
  readonly #closing = new AbortController();

  constructor(options: FakeSubtensorOptions = {}) {
    this.#payloads = new Map(Object.entries(options.payloads ?? {}).map(([k, v]) => [Number(k), v]));
    this.block = options.block ?? 6_852_690;
    this.#server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (r) => this.#handle(r));
    this.url = `http://127.0.0.1:${this.#server.addr.port}`;
  }

  /** Sets what `get_neurons_lite` answers for `netuid` from now on. */
  setPayload(netuid: number, payload: Uint8Array): void {
    this.#payloads.set(netuid, payload);
  }

  /** Sets what `state_call` of runtime API function `fn` answers for `netuid` from now on. */
  setStateCall(fn: string, netuid: number, payload: Uint8Array): void {
    const answers = this.#stateCalls.get(fn) ?? new Map<number, Uint8Array>();
    answers.set(netuid, payload);
    this.#stateCalls.set(fn, answers);
  }

  /**
   * The next `count` requests fail this way (after any failures already queued); with `method`,
   * only the next `count` calls of that JSON-RPC method do.
   */
  failNext(count: number, failure: FakeSubtensorFailure, options: { method?: string } = {}): void {
    for (let i = 0; i < count; i++) this.#failures.push({ failure, method: options.method });
  }

  async close(): Promise<void> {
    this.#closing.abort();
    await this.#server.shutdown();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #handle(request: Request): Promise<Response> {
    if (request.method !== "POST") return new Response("Method Not Allowed", { status: 405 });
    let call: { id?: unknown; method?: unknown; params?: unknown };
    try {
      call = await request.json();
    } catch {
      return rpc(null, { error: { code: -32700, message: "Parse error" } });
    }
    const id = call.id ?? null;
    const params = Array.isArray(call.params) ? call.params : [];
    this.calls.push({ method: String(call.method), params });
    const failure = this.#takeFailure(String(call.method));
    if (failure?.kind === "hang") await this.#hang(failure.ms);
    if (failure?.kind === "rpc_error") {
      return rpc(id, { error: { code: failure.code, message: failure.message } });
    }
    if (failure?.kind === "status") return statusResponse(failure.status, failure.retryAfter);
    if (failure?.kind === "body") {
      return new Response(failure.body, { headers: { "content-type": "application/json" } });
    }
    if (failure?.kind === "result") return rpc(id, { result: failure.result });
    return rpc(id, this.#answer(String(call.method), params));
  }

  #takeFailure(method: string): FakeSubtensorFailure | undefined {
    const at = this.#failures.findIndex((queued) => queued.method === undefined || queued.method === method);
    return at < 0 ? undefined : this.#failures.splice(at, 1)[0]!.failure;
  }

  #answer(
    method: string,
    params: unknown[],
  ): { result: unknown } | { error: { code: number; message: string } } {
    const answers = method === "state_call" ? this.#stateCalls.get(String(params[0])) : undefined;
    if (answers && typeof params[1] === "string") return stateCallAnswer(answers, params[1]);
    if (method === "state_call" && params[0] === NEURONS_LITE && typeof params[1] === "string") {
      const netuid = netuidOfArgument(params[1]);
      if (netuid === null) return { error: { code: -32602, message: "Invalid params" } };
      return { result: `0x${hex.encode(this.#payloadOf(netuid))}` };
    }
    if (method === "neuronInfo_getNeuronsLite" && Number.isInteger(params[0])) {
      return { result: [...this.#payloadOf(params[0] as number)] };
    }
    if (method === "chain_getHeader") return { result: this.#header() };
    if (method === "chain_getBlockHash") return { result: blockHash(this.block) };
    return { error: { code: -32601, message: "Method not found" } };
  }

  #payloadOf(netuid: number): Uint8Array {
    return this.#payloads.get(netuid) ?? Uint8Array.of(0);
  }

  #header() {
    return {
      parentHash: blockHash(this.block - 1),
      number: `0x${this.block.toString(16)}`,
      stateRoot: blockHash(-this.block),
      extrinsicsRoot: blockHash(-this.block - 1),
      digest: { logs: [] },
    };
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

/** Starts a fake Subtensor on a free local port. */
export function startFakeSubtensor(options: FakeSubtensorOptions = {}): FakeSubtensor {
  return new FakeSubtensor(options);
}

function rpc(id: unknown, body: object): Response {
  return Response.json({ jsonrpc: "2.0", ...body, id });
}

function statusResponse(status: number, retryAfter?: string): Response {
  const headers: Record<string, string> = { "content-type": "text/plain" };
  if (retryAfter !== undefined) headers["retry-after"] = retryAfter;
  return new Response(`upstream status ${status}`, { status, headers });
}

function stateCallAnswer(answers: Map<number, Uint8Array>, argument: string) {
  const netuid = netuidOfArgument(argument);
  if (netuid === null) return { error: { code: -32602, message: "Invalid params" } };
  const payload = answers.get(netuid);
  if (!payload) {
    return { error: { code: 4003, message: `Client error: Execution failed: no subnet ${netuid}` } };
  }
  return { result: `0x${hex.encode(payload)}` };
}

/** The netuid of a `state_call` argument (`0x2900` → 41), or null when it is not 2 bytes of hex. */
function netuidOfArgument(argument: string): number | null {
  const match = /^0x([0-9a-fA-F]{2})([0-9a-fA-F]{2})$/.exec(argument);
  return match ? parseInt(match[1]!, 16) + parseInt(match[2]!, 16) * 256 : null;
}

/** A stable made-up 32-byte block hash for a block number. */
function blockHash(block: number): string {
  return `0x${(block >>> 0).toString(16).padStart(64, "0")}`;
}
