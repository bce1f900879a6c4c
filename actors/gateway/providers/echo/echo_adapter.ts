/**
 * The built-in `echo` provider (docs/gateway.md, "Configuring providers (operators)"), no network: the output is the last user message's
 * content cut to `maxTokens × 4` bytes of UTF-8, on a character boundary (a character that would
 * not fit whole is left out, so the output is valid text and never over the limit);
 * `promptTokens = ⌈Σ content bytes / 4⌉`, `completionTokens = ⌈output bytes / 4⌉`.
 */
import type { CompletionRequest } from "../../chat_request.ts";
import type { CompleteOptions, CompletionResult, ProviderAdapter } from "../../provider_adapter.ts";
import { utf8ByteLength } from "../../pricing.ts";

/** The longest prefix of `text` whose UTF-8 form has at most `maxBytes` bytes, cut between characters. */
export function cutUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += utf8ByteLength(char);
    if (bytes > maxBytes) break;
    end += char.length;
  }
  return text.slice(0, end);
}

export class EchoAdapter implements ProviderAdapter {
  complete(request: CompletionRequest, options: CompleteOptions = {}): Promise<CompletionResult> {
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    const lastUser = request.messages.findLast((m) => m.role === "user");
    const output = cutUtf8(lastUser?.content ?? "", request.maxTokens * 4);
    let promptBytes = 0;
    for (const message of request.messages) promptBytes += utf8ByteLength(message.content);
    const promptTokens = Math.ceil(promptBytes / 4);
    const completionTokens = Math.ceil(utf8ByteLength(output) / 4);
    return Promise.resolve({
      output,
      usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
    });
  }
}
