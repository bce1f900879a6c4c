import { z } from "zod";
import { isSs58Address } from "../../actors/kernel/mod.ts";
import { boundedInteger, integerParameter } from "../http/validation.ts";

/**
 * A query integer in `min..max`, written in plain decimal digits (no sign, exponent or hex); its
 * problems are worded as the catalog's (`must be at least 1`).
 */
export function queryInteger(min: number, max: number) {
  return z.string().regex(/^\d{1,15}$/, "must be a non-negative integer").transform(Number)
    .pipe(boundedInteger(min, max)).meta(integerParameter(min, max));
}

/** `queryInteger(min, max)` that is `fallback` when absent, the default shown in the OpenAPI document too. */
export function queryIntegerOr(min: number, max: number, fallback: number) {
  return queryInteger(min, max).default(fallback).meta({ default: fallback });
}

/**
 * A miner's hotkey as a query value: an SS58 address (checksum included), else 400. Any other text
 * names no miner, and it must never reach a statement (PostgreSQL refuses NUL in text).
 */
export const queryHotkey = z.string().max(64).refine(
  isSs58Address,
  "must be an SS58 address (checksum included)",
);

/** ISO 8601 UTC with milliseconds (an OpenAPI description of a timestamp field). */
export const instant = z.string().meta({
  description: "ISO 8601 UTC with milliseconds",
  example: "2026-11-21T06:00:00.000Z",
});
