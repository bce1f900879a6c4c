import { parsePricesJson, type Prices, type PriceSource, PriceSourceError } from "./price_source.ts";

/**
 * Offline adapter of the `PriceSource` port (`FGW_PRICES_SOURCE=file`): reads `FGW_PRICES_FILE`
 * (`{"taoUsd","alphaTao","minerAlphaPerDay","at"}`, docs/scoring.md "Sources") at every fetch, so editing the
 * file is how an operator or a test changes the prices the service sees. A missing, unreadable or malformed
 * file is a `PriceSourceError` (a failed sync: the last prices are kept).
 */
export class FilePriceSource implements PriceSource {
  readonly name = "file";
  readonly #path: string | URL;

  constructor(options: { path: string | URL }) {
    this.#path = options.path;
  }

  async fetch(signal: AbortSignal): Promise<Prices> {
    signal.throwIfAborted();
    const where = String(this.#path);
    try {
      return parsePricesJson(await Deno.readTextFile(this.#path, { signal }), "prices file");
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const reason = error instanceof Error ? error.message : String(error);
      throw new PriceSourceError(`Cannot read prices file ${where}: ${reason}`, { cause: error });
    }
  }
}
