import { z } from "zod";
import { ServiceError } from "../../actors/kernel/mod.ts";

/** Parses `input` with `schema`, or throws 400 `invalid_request` naming every bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw invalidInput(result.error, what);
}

/** 400 `invalid_request` naming every field `error` found bad (`what` when the issue is not one field's). */
export function invalidInput(error: z.ZodError, what: string): ServiceError {
  const fields = error.issues.map((issue) => ({
    field: issue.path.join(".") || what,
    problem: issue.message,
  }));
  return new ServiceError("invalid_request", `Invalid ${what}`, { details: { fields } });
}

/** The query string as one value per name; 400 when a name is repeated (which one should win?). */
export function singleValuedQuery(queries: Record<string, string[]>): Record<string, string> {
  const repeated = Object.keys(queries).filter((name) => (queries[name]?.length ?? 0) > 1);
  if (repeated.length > 0) {
    const fields = repeated.map((field) => ({ field, problem: "must be given at most once" }));
    throw new ServiceError("invalid_request", "Invalid query parameters", { details: { fields } });
  }
  return Object.fromEntries(Object.entries(queries).map(([name, values]) => [name, values[0] ?? ""]));
}

/**
 * Text a person typed (names, references): 1..`max` characters and no control characters, which
 * PostgreSQL refuses (NUL) and logs and terminals misread.
 */
export function plainText(max: number) {
  // deno-lint-ignore no-control-regex
  return z.string().min(1).max(max).regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters");
}
