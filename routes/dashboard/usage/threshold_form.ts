import type { Context } from "hono";
import { z } from "zod";
import { parseOrThrow } from "../../http/validation.ts";

/** The largest threshold storage takes: 2^63 − 1 micro-units. */
const MAX_MICRO = 2n ** 63n - 1n;

/** Credits with up to six decimals, as typed in the threshold field. */
const CREDITS = /^\d{1,13}(\.\d{1,6})?$/;

const thresholdSchema = z.object({
  threshold: z.string().regex(CREDITS, "must be an amount of credits, such as 25 or 2.5 (up to six decimals)")
    .refine((text) => !CREDITS.test(text) || microOf(text) <= MAX_MICRO, "is too large"),
});

/** Credits (`12.5`) as micro-units. */
function microOf(credits: string): bigint {
  const [whole = "0", fraction = ""] = credits.split(".");
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, "0"));
}

/** The threshold the form asks for (null: clear it), or 400 `invalid_request` naming `threshold`. */
export async function readThresholdForm(
  c: Context,
): Promise<{ threshold: string; thresholdMicro: bigint | null }> {
  const body = await c.req.parseBody();
  const threshold = typeof body["threshold"] === "string" ? body["threshold"].trim() : "";
  if (body["clear"] !== undefined) return { threshold: "", thresholdMicro: null };
  const parsed = parseOrThrow(thresholdSchema, { threshold }, "body");
  return { threshold, thresholdMicro: microOf(parsed.threshold) };
}
