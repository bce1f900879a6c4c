/**
 * The `PriceSource` port (docs/scoring.md, "Prices"): where the service reads the TAO price, the subnet's
 * alpha price and the miners' daily alpha emission. Adapters: `chain` (CoinGecko + Subtensor) and `file`.
 */
import { z } from "zod";

/** One reading of the prices the leaderboard shows. */
export interface Prices {
  /** US dollars per TAO. */
  taoUsd: number;
  /** TAO per alpha of the subnet. */
  alphaTao: number;
  /** Alpha paid to the subnet's miners per day (all miners together). */
  minerAlphaPerDay: number;
  /** When these prices were taken: ISO 8601 UTC (`taoPriceUpdatedAt` on the leaderboard). */
  at: string;
}

/** A reading of all the prices at once; throws `PriceSourceError` when any of them cannot be read. */
export interface PriceSource {
  readonly name: string;
  fetch(signal: AbortSignal): Promise<Prices>;
}

/** The prices could not be read (network, upstream error, an answer or file that does not decode). */
export class PriceSourceError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PriceSourceError";
  }
}

/**
 * The shape of `Prices` as JSON (the prices file, the stored record): every number finite (zod
 * refuses infinities, which `1e999` parses to) and non-negative, TAO's price positive; `at` an ISO 8601
 * instant with an offset, normalised to UTC.
 */
export const pricesSchema = z.object({
  taoUsd: z.number().positive(),
  alphaTao: z.number().nonnegative(),
  minerAlphaPerDay: z.number().nonnegative(),
  at: z.iso.datetime({ offset: true }).transform((value) => new Date(value).toISOString()),
}) satisfies z.ZodType<Prices, unknown>;

/**
 * Parses prices from JSON text (`what` names it in errors). Throws a TypeError naming the first
 * problems (path and message) when the text is not JSON or not the shape above.
 */
export function parsePricesJson(text: string, what: string): Prices {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new TypeError(`Invalid ${what}: not JSON (${(error as Error).message})`);
  }
  const parsed = pricesSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 5).map((issue) =>
    `${issue.path.join(".") || "(root)"}: ${issue.message}`
  );
  throw new TypeError(`Invalid ${what}: ${problems.join("; ")}`);
}
