import { z } from "zod";
import type { CompletionResult, TokenUsage } from "../../provider_adapter.ts";
import { malformed } from "../provider_http.ts";

const count = z.number().int().nonnegative();

/** The parts of a Messages answer the gateway reads. */
const messageSchema = z.object({
  type: z.literal("message"),
  content: z.array(z.object({ type: z.string(), text: z.string().optional() })),
  usage: z.unknown().optional(),
});

const usageSchema = z.object({
  input_tokens: count,
  output_tokens: count,
  cache_creation_input_tokens: count.nullish(),
  cache_read_input_tokens: count.nullish(),
});

/**
 * Prompt tokens are `input_tokens` plus the prompt-cache figures Anthropic counts apart (0 unless
 * caching is asked for, which the gateway never does); undefined when usage is not stated.
 */
function usageOf(raw: unknown): TokenUsage | undefined {
  const parsed = usageSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const { input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens } = parsed.data;
  const promptTokens = input_tokens + (cache_creation_input_tokens ?? 0) + (cache_read_input_tokens ?? 0);
  return { promptTokens, completionTokens: output_tokens, totalTokens: promptTokens + output_tokens };
}

/** The output (every text block, in order) and usage of a Messages answer; else malformed (502). */
export function readAnthropicMessage(json: unknown, provider: string): CompletionResult {
  const parsed = messageSchema.safeParse(json);
  if (!parsed.success) throw malformed(provider, "not a Messages answer with content blocks");
  const output = parsed.data.content.map((block) => block.type === "text" ? block.text ?? "" : "").join("");
  const usage = usageOf(parsed.data.usage);
  return { output, ...(usage ? { usage } : {}) };
}
