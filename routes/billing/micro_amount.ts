import { z } from "zod";
import { MAX_MICRO } from "../../storage/billing_store.ts";

/**
 * A money amount on the wire: a JSON string of decimal digits, in micro-units, parsed to a
 * bigint. Signs, points, exponents and JSON numbers are refused (a JSON number loses precision
 * past 2^53), as are amounts below `min` or above 2^63 − 1.
 */
export function microAmount(options: { min: bigint }) {
  return z.string({ error: "must be a string of decimal digits (micro-units)" })
    .regex(/^[0-9]+$/, "must be a string of decimal digits (no sign, point or exponent)")
    .transform((digits) => BigInt(digits))
    .refine((value) => value >= options.min, `must be at least ${options.min}`)
    .refine((value) => value <= MAX_MICRO, `must not exceed ${MAX_MICRO} (2^63-1)`);
}
