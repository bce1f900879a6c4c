/**
 * The arithmetic of `bench:pages`' report, kept pure so it is tested: medians of rounds, the
 * HTML/JSON ratio, a page's weight, the same-origin assets a document loads and the sample URL of
 * a page path with parameters.
 */
import type { LoadResult } from "./load.ts";

/** Targets: the page at ≥ 80 % of its JSON route's requests/s, its p99 under 20 ms, its weight under 100 KB. */
export const RATIO_TARGET = 0.8;
export const P99_TARGET_MS = 20;
export const WEIGHT_TARGET_BYTES = 100_000;

/** The median (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = values.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Each figure's median over the rounds of one run (requests/s, p50, p99; non-2xx summed). */
export function medianOfRounds(label: string, rounds: readonly LoadResult[]): LoadResult {
  return {
    label,
    requestsPerSecond: median(rounds.map((r) => r.requestsPerSecond)),
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
  };
}

/**
 * The median of the per-round ratios `numerator[i] / denominator[i]` of requests/s (rounds that
 * ran side by side share the host's drift, so their ratio is steadier than a ratio of medians).
 */
export function medianRatio(numerator: readonly LoadResult[], denominator: readonly LoadResult[]): number {
  if (numerator.length !== denominator.length) {
    throw new RangeError(`Rounds must pair up: got ${numerator.length} and ${denominator.length}`);
  }
  return median(numerator.map((n, i) => n.requestsPerSecond / denominator[i]!.requestsPerSecond));
}

/** One part of a page's weight: a document or an asset, with its size gzipped. */
export interface WeightPart {
  path: string;
  gzipBytes: number;
}

/** A page's weight: the gzip total of its document and its same-origin assets. */
export function weightTotal(parts: readonly WeightPart[]): number {
  return parts.reduce((sum, part) => sum + part.gzipBytes, 0);
}

/**
 * The same-origin assets a document loads, in document order without repeats: `<link href>` of a
 * stylesheet, an icon or a preload, and the `src` of scripts, images, sources and frames (a path
 * starting with one `/`; another host's URL is not the page's own weight).
 */
export function sameOriginAssets(html: string): string[] {
  const found: string[] = [];
  for (const [tag] of html.matchAll(/<link\b[^>]*>/gi)) {
    const rel = /\brel="([^"]*)"/i.exec(tag)?.[1] ?? "";
    const href = /\bhref="([^"]*)"/i.exec(tag)?.[1];
    if (href && /\b(stylesheet|icon|preload)\b/i.test(rel)) found.push(href);
  }
  for (const [, src] of html.matchAll(/<(?:script|img|source|iframe)\b[^>]*\bsrc="([^"]*)"/gi)) {
    found.push(src!);
  }
  return [...new Set(found.filter((path) => path.startsWith("/") && !path.startsWith("//")))];
}

/**
 * `pattern` (Hono's syntax, `/miners/:hotkey`) with its parameters replaced by their samples, once
 * per combination of samples (each encoded as a path segment); none when a parameter has no sample.
 */
export function fillPaths(pattern: string, samples: Readonly<Record<string, readonly string[]>>): string[] {
  const names = [...pattern.matchAll(/:(\w+)/g)].map((match) => match[1]!);
  let paths = [pattern];
  for (const name of names) {
    const values = samples[name] ?? [];
    paths = paths.flatMap((path) =>
      values.map((value) => path.replace(`:${name}`, encodeURIComponent(value)))
    );
  }
  return [...new Set(paths)];
}

/** `pass` or `fail`, as the report prints a target. */
export function verdict(met: boolean): string {
  return met ? "pass" : "fail";
}
