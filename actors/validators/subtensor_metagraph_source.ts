/**
 * Subtensor adapter of the `MetagraphSource` port: JSON-RPC 2.0 over HTTP POST (docs/validators.md).
 *
 * One fetch makes three calls, all about one block: `chain_getHeader` (the best block's number),
 * `chain_getBlockHash` of that number, then `state_call("NeuronInfoRuntimeApi_get_neurons_lite",
 * <netuid as u16 LE>, <hash>)`, whose payload must decode exactly (`decodeNeuronsLite`). Any
 * failure — no answer in time or an HTTP error once the client's retries are spent, a body that
 * is not a JSON-RPC answer to the call, a JSON-RPC error object, a payload that does not decode —
 * fails the whole fetch with a `MetagraphSourceError`: never a partial metagraph.
 */
import { HttpClient, type HttpClientOptions } from "../kernel/mod.ts";
import { SubtensorRpc, SubtensorRpcError } from "./subtensor_rpc.ts";
import { type MetagraphSource, MetagraphSourceError } from "./metagraph_source.ts";
import type { MetagraphSnapshot } from "./neuron.ts";
import { decodeNeuronsLite, netuidCallArgument, payloadFromRpcResult } from "./neuron_info_lite.ts";

/**
 * Requests go through the shared `HttpClient` (upstream name `subtensor`); its options pass
 * through. Every call only reads chain state, so it is retried like an idempotent request
 * (timeouts, network errors, 408, 429 and 5xx, with backoff and `Retry-After`).
 */
export interface SubtensorMetagraphSourceOptions extends
  Pick<
    HttpClientOptions,
    | "fetch"
    | "timeoutMs"
    | "retries"
    | "backoffBaseMs"
    | "maxDelayMs"
    | "sleep"
    | "clock"
    | "random"
    | "observer"
  > {
  /** JSON-RPC endpoint (`FGW_SUBTENSOR_URL`). */
  url: string;
  /** The subnet (`FGW_NETUID`). */
  netuid: number;
}

const NEURONS_LITE = "NeuronInfoRuntimeApi_get_neurons_lite";
/** A 1024-neuron answer is about 300 KB of hex: more time than the client's 15 s default. */
const DEFAULT_TIMEOUT_MS = 30_000;

/** Reads a subnet's metagraph from a Subtensor node. */
export class SubtensorMetagraphSource implements MetagraphSource {
  readonly name = "subtensor";
  readonly #netuid: number;
  readonly #argument: string;
  readonly #rpc: SubtensorRpc;

  constructor(options: SubtensorMetagraphSourceOptions) {
    this.#netuid = options.netuid;
    this.#argument = netuidCallArgument(options.netuid);
    const { url: _url, netuid: _netuid, ...client } = options;
    const http = new HttpClient({ timeoutMs: DEFAULT_TIMEOUT_MS, ...client, upstream: "subtensor" });
    this.#rpc = new SubtensorRpc(http, options.url);
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
    try {
      return await this.#rpc.call(method, params, signal);
    } catch (error) {
      if (!(error instanceof SubtensorRpcError)) throw error;
      throw new MetagraphSourceError(`Cannot call Subtensor ${method}: ${error.message}`, {
        cause: error.cause ?? error,
      });
    }
  }
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
