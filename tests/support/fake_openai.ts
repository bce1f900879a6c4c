/**
 * A local fake of an OpenAI-compatible chat completions API (OpenAI, OpenRouter, vLLM…), speaking
 * the real wire format: `POST /v1/chat/completions` with `Authorization: Bearer <key>`, answers
 * `{"id","object":"chat.completion","created","model","choices":[{"index","message":{"role",
 * "content"},"finish_reason"}],"usage":{"prompt_tokens","completion_tokens","total_tokens"}}`
 * (plus OpenRouter's `usage.cost` when `costUsd` is set), and errors as
 * `{"error":{"message","type","param","code"}}`. Its `baseUrl` ends in `/v1`, as catalogs write it.
 */
import {
  type FakeLlmMode,
  type FakeLlmOptions,
  FakeLlmServer,
  type FakeUsage,
  json,
  type RecordedRequest,
  type WireFormat,
} from "./fake_llm.ts";

export type { FakeLlmMode, RecordedRequest };

export interface FakeOpenAiOptions extends Partial<FakeLlmOptions> {
  /** OpenRouter's `usage.cost` (US dollars) reported with every usage. */
  costUsd?: number;
  /** The only token-limit field accepted (as OpenAI's reasoning models insist on `max_completion_tokens`). */
  tokenLimitParam?: "max_tokens" | "max_completion_tokens";
}

const ERROR_TYPES: Record<number, [string, string | null]> = {
  400: ["invalid_request_error", null],
  401: ["invalid_request_error", "invalid_api_key"],
  404: ["invalid_request_error", "model_not_found"],
  429: ["requests", "rate_limit_exceeded"],
  500: ["server_error", null],
};

function openAiError(status: number, message: string, param: string | null = null): Response {
  const [type, code] = ERROR_TYPES[status] ?? ["server_error", null];
  return json(status, { error: { message, type, param, code } });
}

function wireFormat(options: FakeOpenAiOptions): WireFormat {
  const limit = options.tokenLimitParam;
  return {
    path: "/v1/chat/completions",
    refuse(request, accepted) {
      if (request.headers.get("authorization") !== `Bearer ${accepted.apiKey}`) {
        return openAiError(401, "Incorrect API key provided: sk-te****");
      }
      const body = request.body;
      if (!body || !Array.isArray(body.messages)) {
        return openAiError(400, "'messages' is a required property", "messages");
      }
      const model = String(body.model);
      if (!accepted.models.includes(model)) {
        return openAiError(
          404,
          `The model \`${model}\` does not exist or you do not have access to it.`,
          "model",
        );
      }
      const other = limit === "max_completion_tokens" ? "max_tokens" : "max_completion_tokens";
      if (limit && other in body) {
        return openAiError(
          400,
          `Unsupported parameter: '${other}' is not supported with this model. Use '${limit}' instead.`,
          other,
        );
      }
      return null;
    },
    success(request, output, usage: FakeUsage | null) {
      return {
        id: `chatcmpl-${crypto.randomUUID()}`,
        object: "chat.completion",
        created: 1_767_225_600,
        model: request.body?.model,
        choices: [{
          index: 0,
          message: { role: "assistant", content: output, refusal: null },
          finish_reason: "stop",
        }],
        ...(usage === null ? {} : {
          usage: {
            prompt_tokens: usage.promptTokens,
            completion_tokens: usage.completionTokens,
            total_tokens: usage.promptTokens + usage.completionTokens,
            ...(options.costUsd === undefined ? {} : { cost: options.costUsd }),
          },
        }),
      };
    },
    error: (status, message) => openAiError(status, message),
  };
}

/** A running fake; `baseUrl` is what a catalog entry names. */
export class FakeOpenAi extends FakeLlmServer {
  readonly baseUrl: string;

  constructor(options: FakeOpenAiOptions = {}) {
    super(wireFormat(options), { apiKey: "sk-test-openai", models: ["gpt-test"], ...options });
    this.baseUrl = `${this.origin}/v1`;
  }
}
