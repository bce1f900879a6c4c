import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import { ServiceError } from "../../actors/kernel/mod.ts";

/**
 * The OpenAPI schema of a query integer parsed from its text: `integer` in `min..max`, in place of
 * the text's `string` and pattern (OpenAPI serializes query values; a client sends the number).
 * Such a schema's `.default(n)` must repeat `default: n` in its metadata to be in the document.
 */
export function integerParameter(min: number, max: number): z.GlobalMeta {
  return { type: "integer", minimum: min, maximum: max, pattern: undefined };
}

/** `integerParameter` for a decimal query number, with its range when it has one. */
export function numberParameter(range: { min: number; max: number } | null = null): z.GlobalMeta {
  return { type: "number", ...(range ? { minimum: range.min, maximum: range.max } : {}), pattern: undefined };
}

/**
 * A parsed query number that must be an integer in `min..max`, with the problems said in words
 * (`must be at least 1`), the same for every route. The bounds come first: zod's `int()` also
 * fails an integer beyond 2^53, and a field's first problem is the one named.
 */
export function boundedInteger(min: number, max: number) {
  return z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`)
    .int("must be an integer");
}

/** Parses `input` with `schema`, or throws 400 `invalid_request` naming every bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw invalidInput(result.error, what);
}

/**
 * 400 `invalid_request` naming every field `error` found bad (`what` when the issue is not one
 * field's). A field the schema does not know (a strict object's unrecognized key) is named itself.
 */
export function invalidInput(error: z.ZodError, what: string): ServiceError {
  const named = error.issues.flatMap((issue) => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        field: [...issue.path, key].join("."),
        problem: `Unknown field "${key}": not accepted here`,
      }));
    }
    return [{ field: issue.path.join(".") || what, problem: issue.message }];
  });
  // One entry per field, its first problem (a value can fail several checks: not an integer and too large).
  const seen = new Set<string>();
  const fields = named.filter(({ field }) => !seen.has(field) && seen.add(field));
  return new ServiceError("invalid_request", `Invalid ${what}`, { details: { fields } });
}

/**
 * The query string as one value per name; 400 when a name is repeated (which one should win?) or
 * empty (`?=x`, which `queries` — Hono's `c.req.queries()` — leaves out): `url` is the raw URL.
 */
export function singleValuedQuery(queries: Record<string, string[]>, url: string): Record<string, string> {
  refuseEmptyNames(url);
  // One plain loop: it runs on every uncached catalog page (the array-method version took 1.4 µs).
  const single: Record<string, string> = Object.create(null); // a name "__proto__" stays a field
  let repeated: string[] | undefined;
  for (const name in queries) {
    const values = queries[name]!;
    if (values.length > 1) (repeated ??= []).push(name);
    single[name] = values[0] ?? "";
  }
  if (repeated) {
    const fields = repeated.map((field) => ({ field, problem: "must be given at most once" }));
    throw new ServiceError("invalid_request", "Invalid query parameters", { details: { fields } });
  }
  return single;
}

/** 400 naming the field `""` when the query of `url` has a parameter with an empty name (`?=x`, `&=`). */
export function refuseEmptyNames(url: string): void {
  const at = url.indexOf("?");
  if (at === -1 || !/(?:^|&)=/.test(url.slice(at + 1))) return;
  const fields = [{ field: "", problem: 'Unknown field "": a query parameter needs a name' }];
  throw new ServiceError("invalid_request", "Invalid query parameters", { details: { fields } });
}

/**
 * Middleware of a route that takes no query parameters: a request with any answers 400 naming
 * each (docs/conventions.md: an unknown query parameter is refused, never ignored).
 */
export const noQueryParameters: MiddlewareHandler = (c, next) => {
  refuseQueryParameters(c.req.url);
  return next();
};

/** 400 `invalid_request` naming each query parameter of `url` (see `noQueryParameters`); none, no answer. */
export function refuseQueryParameters(url: string): void {
  const at = url.indexOf("?");
  if (at === -1 || at === url.length - 1) return;
  const names = [...new Set(new URLSearchParams(url.slice(at + 1)).keys())];
  // Only empty pieces (`?&`, `?&&`): no parameter at all, as the routes that take some read it.
  if (names.length === 0) return;
  const fields = names.map((name) => ({
    field: name,
    problem: `Unknown field "${name}": this route takes no query parameters`,
  }));
  throw new ServiceError("invalid_request", "Invalid query parameters", { details: { fields } });
}

/**
 * True when `value` (parsed JSON) nests at most `maxDepth` levels of objects and arrays (a flat
 * object is one level). Walked with a list, not recursion: a 320 KiB body can nest 160,000 levels.
 */
export function nestsAtMost(value: unknown, maxDepth: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [next, depth] = pending.pop()!;
    if (next === null || typeof next !== "object") continue;
    if (depth > maxDepth) return false;
    for (const child of Object.values(next)) pending.push([child, depth + 1]);
  }
  return true;
}

/** Why `text` cannot be stored as text (PostgreSQL `text` and `jsonb` refuse both), or null. */
export function unstorableText(text: string): string | null {
  if (text.includes("\u0000")) return "must not contain NUL (U+0000)";
  if (!text.isWellFormed()) return "must be well-formed Unicode (no lone surrogates)";
  return null;
}

/**
 * 400 `invalid_request` naming the first string or object key in `value` (parsed JSON) that cannot
 * be stored (`unstorableText`); the field is its path from `value`, keys joined with dots.
 */
export function refuseUnstorableText(value: unknown): void {
  const refuse = (field: string, problem: string) =>
    new ServiceError("invalid_request", "Invalid body", { details: { fields: [{ field, problem }] } });
  const pending: [unknown, string][] = [[value, ""]];
  while (pending.length > 0) {
    const [next, path] = pending.pop()!;
    const problem = typeof next === "string" ? unstorableText(next) : null;
    if (problem) throw refuse(path, problem);
    if (next === null || typeof next !== "object") continue;
    for (const [key, child] of Object.entries(next)) {
      const field = path === "" ? key : `${path}.${key}`;
      const keyProblem = unstorableText(key);
      if (keyProblem) throw refuse(field, `key ${keyProblem}`);
      pending.push([child, field]);
    }
  }
}

/**
 * A free-form JSON field (stored as given, in PostgreSQL as `jsonb`, whose parser gives up on
 * deep nesting): 400 naming the field when it nests deeper than `maxDepth`.
 */
export function shallowJson<S extends z.ZodType>(schema: S, maxDepth: number): S {
  return schema.refine((value) => nestsAtMost(value, maxDepth), {
    message: `must not nest objects and arrays more than ${maxDepth} levels deep`,
  });
}

/** A C0 or C1 control character, or DEL. */
// deno-lint-ignore no-control-regex
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** What free text may not contain, each with the problem a 400 names (first match wins). */
const REFUSED_IN_FREE_TEXT: readonly [RegExp, string][] = [
  [CONTROL_CHARACTER, "must not contain control characters (U+0000-U+001F, U+007F-U+009F)"],
  [/[\u2028\u2029]/, "must not contain line or paragraph separators (U+2028, U+2029)"],
  [
    /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/,
    "must not contain bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069)",
  ],
  [/^\s|\s$/, "must not start or end with whitespace"],
];

/**
 * Text a person typed (an org's or a key's name, a credit reference): 1..`max` UTF-16 units of
 * well-formed Unicode, refused with 400 (never cleaned up) when it holds a control character (C0,
 * DEL, C1), a line or paragraph separator, a bidirectional formatting character, or starts or ends
 * with whitespace. Such text is misread by logs, terminals and CSV readers, can disguise one value
 * as another, and, silently trimmed, would make `" r2 "` and `"r2"` the same credit reference.
 */
export function freeText({ max }: { max: number }) {
  return z.string().min(1).max(max).superRefine((value, ctx) => {
    if (!value.isWellFormed()) {
      ctx.addIssue({ code: "custom", message: "must be well-formed Unicode (no lone surrogates)" });
      return;
    }
    const refused = REFUSED_IN_FREE_TEXT.find(([pattern]) => pattern.test(value));
    if (refused) ctx.addIssue({ code: "custom", message: refused[1] });
  });
}
