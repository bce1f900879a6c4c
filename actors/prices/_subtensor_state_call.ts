/**
 * `state_call` over Subtensor's JSON-RPC 2.0 (HTTP POST, DESIGN §8) for the chain price source:
 * the SCALE bytes a runtime API function answers, or a `PriceSourceError` naming what went wrong
 * (no answer, an HTTP error, a body that is not a JSON-RPC answer to the call, a JSON-RPC error
 * object, a result that is not hex).
 */
import { type HttpClient, UpstreamError } from "../kernel/mod.ts";
import { payloadFromRpcResult } from "../validators/mod.ts";
import { PriceSourceError } from "./price_source.ts";

const HEADERS = { "content-type": "application/json", accept: "application/json" };

export class SubtensorStateCall {
  readonly #http: HttpClient;
  readonly #url: string;
  #nextId = 1;

  constructor(http: HttpClient, url: string) {
    this.#http = http;
    this.#url = url;
  }

  /** Calls runtime API function `fn` (e.g. `SwapRuntimeApi_current_alpha_price`) with `argument` (hex). */
  async call(fn: string, argument: string, signal: AbortSignal): Promise<Uint8Array> {
    const id = this.#nextId++;
    const body = JSON.stringify({ jsonrpc: "2.0", id, method: "state_call", params: [fn, argument] });
    let response: Response;
    try {
      // Reading chain state is safe to repeat: retried like an idempotent request.
      response = await this.#http.request(this.#url, {
        method: "POST",
        headers: HEADERS,
        body,
        signal,
        retry: "idempotent",
      });
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      throw new PriceSourceError(`Cannot call Subtensor ${fn}: ${error.detail}`, { cause: error });
    }
    const result = resultOf(await response.text(), id, (why) => `Cannot call Subtensor ${fn}: ${why}`);
    try {
      return payloadFromRpcResult(result);
    } catch (error) {
      throw new PriceSourceError(`Cannot call Subtensor ${fn}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}

/** The `result` of the JSON-RPC 2.0 answer to call `id`. */
function resultOf(text: string, id: number, message: (why: string) => string): unknown {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new PriceSourceError(message("the answer is not JSON"));
  }
  if (typeof answer !== "object" || answer === null || Array.isArray(answer)) {
    throw new PriceSourceError(message("the answer is not a JSON-RPC object"));
  }
  const fields = answer as Record<string, unknown>;
  if (fields.jsonrpc !== "2.0" || fields.id !== id) {
    throw new PriceSourceError(message("the answer is not for this call"));
  }
  if ("error" in fields) {
    const error = fields.error as { code?: unknown; message?: unknown } | null;
    throw new PriceSourceError(message(`JSON-RPC error ${String(error?.code)}: ${String(error?.message)}`));
  }
  if (!("result" in fields)) throw new PriceSourceError(message("the answer has neither result nor error"));
  return fields.result;
}
