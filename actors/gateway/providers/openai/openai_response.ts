import { z } from "zod";
import type { CompletionResult, TokenUsage } from "../../provider_adapter.ts";
import { malformed } from "../provider_http.ts";

const count = z.number().int().nonnegative();

/** The parts of a chat completion the gateway reads; anything else in it is ignored. */
const completionSchema = z.object({
  choices: z.array(z.object({
    message: z.object({
      content: z.string().nullish(),
      /** Set instead of `content` when the model refused. */
      refusal: z.string().nullish(),
    }),
  })).min(1),
  usage: z.unknown().optional(),
});

const usageSchema = z.object({
  prompt_tokens: count,
  completion_tokens: count,
  total_tokens: count.optional(),
  /** OpenRouter: what the call cost, in US dollars (credits). */
  cost: z.number().nonnegative().optional(),
});

/**
 * A non-negative number as plain decimal digits, the shortest that reads back as the same number
 * (`1.5e-7` → `0.00000015`): how the provider's JSON most likely wrote it.
 */
export function plainDecimal(value: number): string {
  const text = String(value);
  const match = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const digits = match[1]! + (match[2] ?? "");
  const point = match[1]!.length + Number(match[3]);
  if (point <= 0) return `0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + "0".repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** `usage` when it states both counts; undefined otherwise (the caller charges the hold). */
function usageOf(raw: unknown): { usage?: TokenUsage; providerReportedCostUsd?: string } {
  const parsed = usageSchema.safeParse(raw);
  if (!parsed.success) return {};
  const { prompt_tokens, completion_tokens, total_tokens, cost } = parsed.data;
  return {
    usage: {
      promptTokens: prompt_tokens,
      completionTokens: completion_tokens,
      totalTokens: total_tokens ?? prompt_tokens + completion_tokens,
    },
    ...(cost === undefined ? {} : { providerReportedCostUsd: plainDecimal(cost) }),
  };
}

/**
 * The output and usage of a chat completion answer: the first choice's content (its refusal when
 * it has no content; "" when neither, e.g. a reasoning model that spent every token thinking).
 * An answer without a choice is malformed (502).
 */
export function readOpenAiCompletion(json: unknown, provider: string): CompletionResult {
  const parsed = completionSchema.safeParse(json);
  if (!parsed.success) throw malformed(provider, "not a chat completion with a choice");
  const message = parsed.data.choices[0]!.message;
  return { output: message.content ?? message.refusal ?? "", ...usageOf(parsed.data.usage) };
}
