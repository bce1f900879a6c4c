/**
 * A local fake of the Anthropic Messages API, speaking the real wire format: `POST /v1/messages`
 * with `x-api-key` and `anthropic-version` headers, a top-level `system`, `messages` of user and
 * assistant turns only, `max_tokens` required; answers `{"id","type":"message","role":"assistant",
 * "model","content":[{"type":"text","text"}],"stop_reason","stop_sequence","usage":{"input_tokens",
 * "output_tokens"}}` and errors as `{"type":"error","error":{"type","message"}}`. Its `baseUrl` is
 * the origin, as catalogs write it.
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

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  404: "not_found_error",
  429: "rate_limit_error",
  500: "api_error",
};

function anthropicError(status: number, message: string): Response {
  return json(status, { type: "error", error: { type: ERROR_TYPES[status] ?? "api_error", message } });
}

/** Why Anthropic would refuse this body, or null. */
function bodyProblem(body: Record<string, unknown> | undefined): string | null {
  if (!body) return "Request body is not valid JSON";
  if (typeof body.max_tokens !== "number") return "max_tokens: Field required";
  if (!Array.isArray(body.messages)) return "messages: Field required";
  const roles = (body.messages as { role?: unknown }[]).map((m) => m.role);
  const odd = roles.find((role) => role !== "user" && role !== "assistant");
  if (odd !== undefined) {
    return `messages: Unexpected role "${
      String(odd)
    }". The Messages API accepts a top-level \`system\` parameter, not "system" as an input message role.`;
  }
  return null;
}

const wireFormat: WireFormat = {
  path: "/v1/messages",
  refuse(request, accepted) {
    if (request.headers.get("x-api-key") !== accepted.apiKey) return anthropicError(401, "invalid x-api-key");
    if (!request.headers.get("anthropic-version")) {
      return anthropicError(400, "anthropic-version: header is required");
    }
    const problem = bodyProblem(request.body);
    if (problem) return anthropicError(400, problem);
    const model = String(request.body?.model);
    if (!accepted.models.includes(model)) return anthropicError(404, `model: ${model}`);
    return null;
  },
  success(request, output, usage: FakeUsage | null) {
    return {
      id: `msg_${crypto.randomUUID().replaceAll("-", "")}`,
      type: "message",
      role: "assistant",
      model: request.body?.model,
      content: [{ type: "text", text: output }],
      stop_reason: "end_turn",
      stop_sequence: null,
      ...(usage === null
        ? {}
        : { usage: { input_tokens: usage.promptTokens, output_tokens: usage.completionTokens } }),
    };
  },
  error: anthropicError,
};

/** A running fake; `baseUrl` is what a catalog entry names. */
export class FakeAnthropic extends FakeLlmServer {
  readonly baseUrl: string;

  constructor(options: Partial<FakeLlmOptions> = {}) {
    super(wireFormat, { apiKey: "sk-ant-test", models: ["claude-test"], ...options });
    this.baseUrl = this.origin;
  }
}
