/**
 * The `chain` adapter of the `PriceSource` port (docs/scoring.md, "Sources"), three reads at once:
 * - TAO/USD: CoinGecko `GET {FGW_COINGECKO_URL}/simple/price?ids=bittensor&vs_currencies=usd`
 *   → `{"bittensor":{"usd":412.5}}`;
 * - alpha/TAO: Subtensor `state_call("SwapRuntimeApi_current_alpha_price", <netuid u16 LE>)` → u64
 *   rao of TAO per alpha, ÷ 1e9;
 * - minerAlphaPerDay: `state_call("SubnetInfoRuntimeApi_get_dynamic_info", <netuid>)` →
 *   `Option<DynamicInfo>`; its `alpha_out_emission` (alpha rao per block) × 7200 × 0.41 ÷ 1e9.
 * Any failure fails the whole reading with a `PriceSourceError` (the other reads are cancelled):
 * never a partial one. `at` is the time the reading completed.
 */
import { z } from "zod";
import { type Clock, HttpClient, type HttpClientOptions, isoAt, systemClock } from "../kernel/mod.ts";
import { UpstreamError } from "../kernel/mod.ts";
import { netuidCallArgument } from "../validators/mod.ts";
import { type Prices, type PriceSource, PriceSourceError } from "./price_source.ts";
import { alphaTaoOf, decodeAlphaPriceRao, decodeDynamicInfo, minerAlphaPerDayOf } from "./subnet_scale.ts";
import { SubtensorStateCall } from "./_subtensor_state_call.ts";

/**
 * Both upstreams go through the shared `HttpClient` (upstream names `coingecko` and `subtensor`),
 * whose options pass through; every read is retried like an idempotent request (timeouts, network
 * errors, 408, 429 and 5xx, with backoff and `Retry-After`).
 */
export interface ChainPriceSourceOptions extends
  Pick<
    HttpClientOptions,
    "fetch" | "timeoutMs" | "retries" | "backoffBaseMs" | "maxDelayMs" | "sleep" | "random" | "observer"
  > {
  /** CoinGecko API root (`FGW_COINGECKO_URL`), e.g. `https://api.coingecko.com/api/v3`. */
  coingeckoUrl: string;
  /** Subtensor JSON-RPC endpoint (`FGW_SUBTENSOR_URL`). */
  subtensorUrl: string;
  /** The subnet (`FGW_NETUID`). */
  netuid: number;
  /** Stamps `at`, and reads `Retry-After` dates; default the wall clock. */
  clock?: Clock;
}

export const ALPHA_PRICE_FN = "SwapRuntimeApi_current_alpha_price";
export const DYNAMIC_INFO_FN = "SubnetInfoRuntimeApi_get_dynamic_info";

const coingeckoPrice = z.object({ bittensor: z.object({ usd: z.number().positive() }) });

/** Reads the prices from CoinGecko and a Subtensor node. */
export class ChainPriceSource implements PriceSource {
  readonly name = "chain";
  readonly #priceUrl: URL;
  readonly #netuid: number;
  readonly #argument: string;
  readonly #coingecko: HttpClient;
  readonly #subtensor: SubtensorStateCall;
  readonly #clock: Clock;

  constructor(options: ChainPriceSourceOptions) {
    const { coingeckoUrl, subtensorUrl, netuid, clock = systemClock, ...client } = options;
    this.#priceUrl = new URL(`${coingeckoUrl.replace(/\/+$/, "")}/simple/price`);
    this.#priceUrl.search = new URLSearchParams({ ids: "bittensor", vs_currencies: "usd" }).toString();
    this.#netuid = netuid;
    this.#argument = netuidCallArgument(netuid);
    this.#clock = clock;
    this.#coingecko = new HttpClient({ ...client, clock, upstream: "coingecko" });
    this.#subtensor = new SubtensorStateCall(
      new HttpClient({ ...client, clock, upstream: "subtensor" }),
      subtensorUrl,
    );
  }

  async fetch(signal: AbortSignal): Promise<Prices> {
    const cancel = new AbortController();
    const both = AbortSignal.any([signal, cancel.signal]);
    const first = <T>(read: Promise<T>) =>
      read.catch((error: unknown) => {
        cancel.abort(error);
        throw error;
      });
    const [taoUsd, alphaTao, minerAlphaPerDay] = await Promise.all([
      first(this.#taoUsd(both)),
      first(this.#alphaTao(both)),
      first(this.#minerAlphaPerDay(both)),
    ]);
    return { taoUsd, alphaTao, minerAlphaPerDay, at: isoAt(this.#clock()) };
  }

  async #taoUsd(signal: AbortSignal): Promise<number> {
    let response: Response;
    try {
      response = await this.#coingecko.request(this.#priceUrl, {
        headers: { accept: "application/json" },
        signal,
      });
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      throw new PriceSourceError(`Cannot read the TAO price from CoinGecko: ${error.detail}`, {
        cause: error,
      });
    }
    let body: unknown;
    try {
      body = JSON.parse(await response.text());
    } catch {
      throw new PriceSourceError("Cannot read the TAO price from CoinGecko: the answer is not JSON");
    }
    const parsed = coingeckoPrice.safeParse(body);
    if (!parsed.success) {
      throw new PriceSourceError("Cannot read the TAO price from CoinGecko: no positive bittensor.usd");
    }
    return parsed.data.bittensor.usd;
  }

  async #alphaTao(signal: AbortSignal): Promise<number> {
    const payload = await this.#subtensor.call(ALPHA_PRICE_FN, this.#argument, signal);
    return alphaTaoOf(decoded(() => decodeAlphaPriceRao(payload)));
  }

  async #minerAlphaPerDay(signal: AbortSignal): Promise<number> {
    const payload = await this.#subtensor.call(DYNAMIC_INFO_FN, this.#argument, signal);
    const info = decoded(() => decodeDynamicInfo(payload, { netuid: this.#netuid }));
    if (info === null) {
      throw new PriceSourceError(
        `Cannot read ${DYNAMIC_INFO_FN}: subnet ${this.#netuid} does not exist (None)`,
      );
    }
    return minerAlphaPerDayOf(info.alphaOutEmission);
  }
}

/** A decoder's result, its RangeError turned into a PriceSourceError. */
function decoded<T>(decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    throw new PriceSourceError((error as Error).message, { cause: error });
  }
}
