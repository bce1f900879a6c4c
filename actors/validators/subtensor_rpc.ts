/**
 * JSON-RPC 2.0 over HTTP POST to a Subtensor node (docs/validators.md), shared by every reader of chain
 * state (the metagraph source, the chain price source). Calls only read chain state, so they are
 * retried like idempotent requests by the shared `HttpClient`.
 */
import { type HttpClient, UpstreamError } from "../kernel/mod.ts";

const HEADERS = { "content-type": "application/json", accept: "application/json" };

/**
 * A call that got no usable answer: no answer in time or an HTTP error once the client's retries
 * are spent, a body that is not a JSON-RPC answer to the call, or a JSON-RPC error object. The
 * message says why; callers wrap it in their port's error.
 */
export class SubtensorRpcError extends Error {
  constructor(why: string, options: { cause?: unknown } = {}) {
    super(why, options);
    this.name = "SubtensorRpcError";
  }
}

/** One Subtensor JSON-RPC endpoint. */
export class SubtensorRpc {
  readonly #http: HttpClient;
  readonly #url: string;
  #nextId = 1;

  constructor(http: HttpClient, url: string) {
    this.#http = http;
    this.#url = url;
  }

  /** The `result` of `method(params)`, or a `SubtensorRpcError`. */
  async call(method: string, params: unknown[], signal: AbortSignal): Promise<unknown> {
    const id = this.#nextId++;
    const body = JSON.stringify({ jsonrpc: "2.0", id, method, params });
    let response: Response;
    try {
      response = await this.#http.request(this.#url, {
        method: "POST",
        headers: HEADERS,
        body,
        signal,
        retry: "idempotent",
      });
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      throw new SubtensorRpcError(error.detail, { cause: error });
    }
    return resultOf(await response.text(), id);
  }
}

/** The `result` of a JSON-RPC 2.0 answer to call `id`; a SubtensorRpcError for anything else. */
function resultOf(text: string, id: number): unknown {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new SubtensorRpcError("the answer is not JSON");
  }
  if (typeof answer !== "object" || answer === null || Array.isArray(answer)) {
    throw new SubtensorRpcError("the answer is not a JSON-RPC object");
  }
  const fields = answer as Record<string, unknown>;
  if (fields.jsonrpc !== "2.0" || fields.id !== id) {
    throw new SubtensorRpcError("the answer is not for this call");
  }
  if ("error" in fields) {
    const error = fields.error as { code?: unknown; message?: unknown } | null;
    throw new SubtensorRpcError(`JSON-RPC error ${String(error?.code)}: ${String(error?.message)}`);
  }
  if (!("result" in fields)) throw new SubtensorRpcError("the answer has neither result nor error");
  return fields.result;
}
