/** A conversation turn of a completion request (string content only: docs/gateway.md, "Routes"). */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/**
 * What an adapter is asked to complete: the already validated body of a completion request,
 * without the provider (the adapter is that provider's) and without billing fields.
 */
export interface CompletionRequest {
  model: string;
  messages: readonly ChatMessage[];
  /** Largest number of completion tokens; sent under the provider's `tokenLimitParam`. */
  maxTokens: number;
  temperature?: number;
  topP?: number;
  stop?: string | readonly string[];
}

/**
 * A completion call as both gateway routes take it, already checked against the route's schema:
 * the provider to ask and what to ask it (an absent optional field may read `undefined`).
 */
export interface CompletionCall {
  provider: string;
  model: string;
  messages: readonly ChatMessage[];
  maxTokens: number;
  temperature?: number | undefined;
  topP?: number | undefined;
  stop?: string | readonly string[] | undefined;
}

/** The adapter's request of a call: its fields without the provider, the unset ones left out. */
export function adapterRequest(call: CompletionCall): CompletionRequest {
  const { model, messages, maxTokens, temperature, topP, stop } = call;
  return {
    model,
    messages,
    maxTokens,
    ...(temperature === undefined ? {} : { temperature }),
    ...(topP === undefined ? {} : { topP }),
    ...(stop === undefined ? {} : { stop }),
  };
}
