import type { Context } from "hono";
import { z } from "zod";
import { HotkeyProof } from "../../../actors/ceremony/mod.ts";
import { isSs58Address, ServiceError } from "../../../actors/kernel/mod.ts";
import { invalidInput } from "../../http/validation.ts";
import { leaseQuerySchema } from "../../usage/usage_api.ts";
import { type FieldProblem, fieldProblemsOf } from "../pages/form_problems.tsx";
import { daysBefore, localDate } from "../usage/usage_form.ts";

export type { FieldProblem };

/** The hotkey field: an SS58 address with network prefix 42. */
export const hotkeyField = z.string().trim().min(1, "Type the hotkey's SS58 address").max(64)
  .refine(isSs58Address, "Expected an SS58 address with network prefix 42 (Bittensor)");

/** The first step of a link or a hotkey sign-in: the hotkey the member typed. */
export const HotkeyForm = z.object({ hotkey: hotkeyField });

/** The bind form: a member id of the organisation, or "" for nobody. */
export const BindForm = z.object({
  memberId: z.string().trim().max(64).regex(
    /^(?:mbr_[A-Za-z0-9_-]+)?$/,
    "Pick a member of the list, or nobody",
  ),
});

/** The form's fields as text (a repeated field: its last value). */
export async function readFields(c: Context): Promise<Record<string, string>> {
  const body = await c.req.parseBody({ all: true });
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    const last = Array.isArray(value) ? value.at(-1) : value;
    if (typeof last === "string" && name !== "_csrf") fields[name] = last;
  }
  return fields;
}

/** The refused fields of `schema` for `fields`, or its value. */
export function checkForm<S extends z.ZodType>(
  schema: S,
  fields: Record<string, string>,
): { value: z.infer<S>; problems: [] } | { value: null; problems: FieldProblem[] } {
  const parsed = schema.safeParse(fields);
  if (parsed.success) return { value: parsed.data, problems: [] };
  return { value: null, problems: fieldProblemsOf(invalidInput(parsed.error, "form")) };
}

/**
 * A pasted signature: as the signing tool prints it (hex, `0x` optional), its blanks and line
 * breaks dropped; the rest of the proof as `HotkeyProof` checks it.
 */
export function proofForm(fields: Record<string, string>) {
  return checkForm(HotkeyProof, {
    hotkey: (fields["hotkey"] ?? "").trim(),
    challenge: (fields["challenge"] ?? "").trim(),
    signature: (fields["signature"] ?? "").replace(/\s+/g, ""),
  });
}

/** The spend range of the miners page: local days `from`..`to` of zone `tz`. */
export interface SpendRange {
  from: string;
  to: string;
  tz: string;
}

/** The last seven UTC days up to `nowMs`'s. */
export function defaultRange(nowMs: number): SpendRange {
  const to = localDate(nowMs, "UTC");
  return { from: daysBefore(to, 6), to, tz: "UTC" };
}

/**
 * The range of the query (the defaults when none is given), checked exactly as `GET
 * /v1/usage/leases` checks its query; the refused fields otherwise.
 */
export function rangeOf(
  query: Record<string, string>,
  nowMs: number,
): { range: SpendRange; problems: FieldProblem[] } {
  const given = { ...defaultRange(nowMs), ...pick(query, ["from", "to", "tz"]) };
  const parsed = leaseQuerySchema.safeParse(given);
  if (parsed.success) {
    return { range: { from: parsed.data.from, to: parsed.data.to, tz: parsed.data.tz }, problems: [] };
  }
  return { range: given, problems: fieldProblemsOf(invalidInput(parsed.error, "range")) };
}

function pick(query: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.filter((name) => query[name] !== undefined).map((name) => [name, query[name]!]),
  );
}

/** Whether `error` is a ceremony's refusal of a proof (401 with `details.refused`). */
export function isRefusal(error: unknown): error is ServiceError {
  return error instanceof ServiceError && error.code === "unauthenticated" &&
    typeof error.details?.["refused"] === "string";
}
