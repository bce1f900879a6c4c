/**
 * Subtensor adapter of the `MetagraphSource` port: JSON-RPC 2.0 over HTTP POST (DESIGN §8).
 *
 * One fetch makes three calls, all about one block: `chain_getHeader` (the best block's number),
 * `chain_getBlockHash` of that number, then `state_call("NeuronInfoRuntimeApi_get_neurons_lite",
 * <netuid as u16 LE>, <hash>)`, whose payload must decode exactly (`decodeNeuronsLite`). Any
 * failure — no answer in time, an HTTP error, a body that is not a JSON-RPC answer to the call, a
 * JSON-RPC error object, a payload that does not decode — fails the whole fetch with a
 * `MetagraphSourceError`: never a partial metagraph.
 */
import { type MetagraphSource, MetagraphSourceError } from "./metagraph_source.ts";
import type { MetagraphSnapshot } from "./neuron.ts";
import { decodeNeuronsLite, netuidCallArgument, payloadFromRpcResult } from "./neuron_info_lite.ts";

/** How the adapter sends one POST. */
export interface RpcPost {
  url: string;
  body: string;
  signal: AbortSignal;
}

/**
 * Sends one POST and resolves with its 2xx answer's body text; rejects on anything else (no
 * answer in time, a network error, a non-2xx status) with an Error naming why.
 */
export type RpcTransport = (post: RpcPost) => Promise<string>;

export interface SubtensorMetagraphSourceOptions {
  /** JSON-RPC endpoint (`FGW_SUBTENSOR_URL`). */
  url: string;
  /** The subnet (`FGW_NETUID`). */
  netuid: number;
  /** Default `fetchTransport()`: the global `fetch`, 30 s per request, no retries. */
  transport?: RpcTransport;
}

export interface FetchTransportOptions {
  /** Default the global `fetch`. */
  fetch?: typeof fetch;
  /** Time allowed for one request, headers and body; default 30 s (a 1024-neuron answer is ~300 KB). */
  timeoutMs?: number;
  /** Default `forecasting-gateway`. */
  userAgent?: string;
}

const NEURONS_LITE = "NeuronInfoRuntimeApi_get_neurons_lite";

/** A transport over `fetch`, with a timeout per request through `AbortSignal.timeout`. */
export function fetchTransport(options: FetchTransportOptions = {}): RpcTransport {
  const send = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const headers = {
    "content-type": "application/json",
    accept: "application/json",
    "user-agent": options.userAgent ?? "forecasting-gateway",
  };
  return async ({ url, body, signal }) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const response = await send(url, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.any([signal, timeout]),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return text;
    } catch (error) {
      signal.throwIfAborted();
      if (timeout.aborted) throw new Error(`no answer within ${timeoutMs} ms`, { cause: error });
      throw error;
    }
  };
}

/** Reads a subnet's metagraph from a Subtensor node. */
export class SubtensorMetagraphSource implements MetagraphSource {
  readonly name = "subtensor";
  readonly #url: string;
  readonly #netuid: number;
  readonly #argument: string;
  readonly #transport: RpcTransport;
  #nextId = 1;

  constructor(options: SubtensorMetagraphSourceOptions) {
    this.#url = options.url;
    this.#netuid = options.netuid;
    this.#argument = netuidCallArgument(options.netuid);
    this.#transport = options.transport ?? fetchTransport();
  }

  async fetch(signal: AbortSignal): Promise<MetagraphSnapshot> {
    const block = blockNumberOf(await this.#call("chain_getHeader", [], signal));
    const hash = blockHashOf(await this.#call("chain_getBlockHash", [block], signal), block);
    const result = await this.#call("state_call", [NEURONS_LITE, this.#argument, hash], signal);
    try {
      const neurons = decodeNeuronsLite(payloadFromRpcResult(result), { netuid: this.#netuid });
      return { netuid: this.#netuid, block, neurons };
    } catch (error) {
      throw new MetagraphSourceError(`Cannot decode ${NEURONS_LITE} at block ${block}: ${messageOf(error)}`, {
        cause: error,
      });
    }
  }

  /** One JSON-RPC call; its `result`, or a MetagraphSourceError. */
  async #call(method: string, params: unknown[], signal: AbortSignal): Promise<unknown> {
    const id = this.#nextId++;
    const body = JSON.stringify({ jsonrpc: "2.0", id, method, params });
    let text: string;
    try {
      text = await this.#transport({ url: this.#url, body, signal });
    } catch (error) {
      signal.throwIfAborted();
      throw new MetagraphSourceError(`Cannot call Subtensor ${method}: ${messageOf(error)}`, {
        cause: error,
      });
    }
    return resultOf(text, { method, id });
  }
}

/** The `result` of a JSON-RPC 2.0 answer to call `id`; a MetagraphSourceError for anything else. */
function resultOf(text: string, call: { method: string; id: number }): unknown {
  const fail = (why: string) => new MetagraphSourceError(`Cannot call Subtensor ${call.method}: ${why}`);
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw fail("the answer is not JSON");
  }
  if (typeof answer !== "object" || answer === null || Array.isArray(answer)) {
    throw fail("the answer is not a JSON-RPC object");
  }
  const fields = answer as Record<string, unknown>;
  if (fields.jsonrpc !== "2.0" || fields.id !== call.id) throw fail("the answer is not for this call");
  if ("error" in fields) {
    const error = fields.error as { code?: unknown; message?: unknown } | null;
    throw fail(`JSON-RPC error ${String(error?.code)}: ${String(error?.message)}`);
  }
  if (!("result" in fields)) throw fail("the answer has neither result nor error");
  return fields.result;
}

function blockNumberOf(header: unknown): number {
  const number = (header as { number?: unknown } | null)?.number;
  if (typeof number !== "string" || !/^0x[0-9a-fA-F]{1,13}$/.test(number)) {
    throw new MetagraphSourceError("Cannot read Subtensor chain_getHeader: no block number");
  }
  return parseInt(number, 16);
}

function blockHashOf(hash: unknown, block: number): string {
  if (typeof hash !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(hash)) {
    throw new MetagraphSourceError(`Cannot read Subtensor chain_getBlockHash: no hash for block ${block}`);
  }
  return hash;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
