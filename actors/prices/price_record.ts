/**
 * The latest prices as every instance shares them: one JSON record in the settings store
 * (`SettingStore`, name `prices_latest`), written fenced by the prices job's lease, read by every
 * instance's `PriceView`.
 */
import { z } from "zod";
import { type Prices, pricesSchema } from "./price_source.ts";

/** The setting that holds the record. */
export const PRICES_SETTING = "prices_latest";

/** The last successful sync: what it read, from which source, and when it ran. */
export interface PriceRecord {
  prices: Prices;
  /** The source adapter's name (`chain` or `file`). */
  source: string;
  /** Start of the run that read these prices, on that instance's clock (ms since the epoch). */
  syncedAtMs: number;
}

const recordSchema = z.object({
  prices: pricesSchema,
  source: z.string().min(1),
  syncedAtMs: z.number().int().nonnegative(),
}) satisfies z.ZodType<PriceRecord, unknown>;

export function encodePriceRecord(record: PriceRecord): string {
  return JSON.stringify(record);
}

/** Parses a stored record; throws a TypeError when it is not one. */
export function decodePriceRecord(value: string): PriceRecord {
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    throw new TypeError(`Invalid stored prices (${PRICES_SETTING}): not JSON`);
  }
  const parsed = recordSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TypeError(
      `Invalid stored prices (${PRICES_SETTING}): ${issue?.path.join(".")}: ${issue?.message}`,
    );
  }
  return parsed.data;
}
