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
