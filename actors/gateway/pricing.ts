/**
 * Gateway pricing (docs/gateway.md, "Pricing and the hold"): integer micro-credits per million tokens, a markup in basis points,
 * and the worst-case hold taken before an upstream call. Pure functions over bigint, no rounding
 * but the ceilings the formulas name.
 */
import type { ChatMessage } from "./chat_request.ts";

/** A model's price: micro-credits per million tokens, each way. */
export interface ModelPrice {
  inputMicroPerMTok: bigint;
  outputMicroPerMTok: bigint;
}

/** Token counts of one call, as a provider reports them (or as the hold bounds them). */
export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
}

/** The two figures of a call's price: what the provider costs us, and what the org pays. */
export interface CallCost {
  providerCostMicro: bigint;
  costMicro: bigint;
}

const PER_MILLION = 1_000_000n;
const BPS = 10_000n;

/**
 * Tokens a chat format spends on one message besides its content: its special tokens and the
 * bytes of its role label and separators. ChatML (`<|im_start|>assistant\n…<|im_end|>\n`: 2 special
 * tokens + ≤ 11 bytes = 13), OpenAI's harmony format (`<|start|>assistant<|message|>…<|end|>`: 3 + 9
 * = 12), Llama 3 headers (`<|start_header_id|>assistant<|end_header_id|>\n\n…<|eot_id|>`: 3 + 11
 * = 14) and Anthropic's turn labels (`\n\nAssistant: `: 13 bytes) all stay within 16.
 */
export const MESSAGE_OVERHEAD_TOKENS = 16;

/**
 * Tokens a chat format spends once per request: a begin-of-text token, the reply priming of the
 * assistant's turn (≤ 16 as above) and the short default system preamble some open-model chat
 * templates insert (Llama 3's knowledge-cutoff dates, harmony's channel list: well under 100).
 */
export const REQUEST_OVERHEAD_TOKENS = 128;

/** `ceil(a / b)` for a ≥ 0, b > 0. */
function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/** `ceil((promptTokens × inputPrice + completionTokens × outputPrice) / 1e6)`. */
export function providerCostMicro(tokens: TokenCounts, price: ModelPrice): bigint {
  const micro = BigInt(tokens.promptTokens) * price.inputMicroPerMTok +
    BigInt(tokens.completionTokens) * price.outputMicroPerMTok;
  return ceilDiv(micro, PER_MILLION);
}

/** `providerCostMicro + ceil(providerCostMicro × markupBps / 10000)`. */
export function withMarkup(providerCost: bigint, markupBps: number): bigint {
  return providerCost + ceilDiv(providerCost * BigInt(markupBps), BPS);
}

/** Both figures of a call with these token counts. */
export function callCost(tokens: TokenCounts, options: { price: ModelPrice; markupBps: number }): CallCost {
  const provider = providerCostMicro(tokens, options.price);
  return { providerCostMicro: provider, costMicro: withMarkup(provider, options.markupBps) };
}

/**
 * The number of bytes of `text` in UTF-8, without encoding it. A lone surrogate counts 3 bytes,
 * as the U+FFFD that `TextEncoder` writes for it.
 */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * A provable upper bound of the prompt's tokens for byte-level tokenizers, where every token
 * covers at least one UTF-8 byte of the rendered text (special tokens aside): Σ content bytes, plus
 * `MESSAGE_OVERHEAD_TOKENS` per message, plus `REQUEST_OVERHEAD_TOKENS`.
 */
export function promptTokenBound(messages: readonly ChatMessage[]): number {
  let tokens = REQUEST_OVERHEAD_TOKENS;
  for (const message of messages) tokens += MESSAGE_OVERHEAD_TOKENS + utf8ByteLength(message.content);
  return tokens;
}

/** The worst case of a call: the prompt's bound and every one of `maxTokens` completion tokens. */
export function worstCaseTokens(messages: readonly ChatMessage[], maxTokens: number): TokenCounts {
  return { promptTokens: promptTokenBound(messages), completionTokens: maxTokens };
}
