/**
 * `state_call` over Subtensor's JSON-RPC (the validators area's `SubtensorRpc`) for the chain price
 * source: the SCALE bytes a runtime API function answers, or a `PriceSourceError` naming what went
 * wrong (no answer, an HTTP error, a body that is not a JSON-RPC answer to the call, a JSON-RPC
 * error object, a result that is not hex).
 */
import type { HttpClient } from "../kernel/mod.ts";
import { payloadFromRpcResult, SubtensorRpc, SubtensorRpcError } from "../validators/mod.ts";
import { PriceSourceError } from "./price_source.ts";

export class SubtensorStateCall {
  readonly #rpc: SubtensorRpc;

  constructor(http: HttpClient, url: string) {
    this.#rpc = new SubtensorRpc(http, url);
  }

  /** Calls runtime API function `fn` (e.g. `SwapRuntimeApi_current_alpha_price`) with `argument` (hex). */
  async call(fn: string, argument: string, signal: AbortSignal): Promise<Uint8Array> {
    const fail = (error: Error, cause: unknown) =>
      new PriceSourceError(`Cannot call Subtensor ${fn}: ${error.message}`, { cause });
    let result: unknown;
    try {
      result = await this.#rpc.call("state_call", [fn, argument], signal);
    } catch (error) {
      if (!(error instanceof SubtensorRpcError)) throw error;
      throw fail(error, error.cause ?? error);
    }
    try {
      return payloadFromRpcResult(result);
    } catch (error) {
      throw fail(error as Error, error);
    }
  }
}
