/**
 * The relay's own answers to an agent, in the service's error body (docs/conventions.md, "Errors"):
 * `{"error":{"code","message","details"?},"requestId"}`, so that an agent reads one shape whoever
 * refused its call. Its codes are the service's, and `relay_limit` (429: the run's calls are spent).
 */
import { HTTPException } from "hono/http-exception";
import { ServiceError } from "../../../actors/kernel/mod.ts";
import { STATUS_OF } from "../../../routes/middleware/error_handler.ts";

/** A refusal: its status, code, message, and what the error body adds. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
  retryAfterSeconds?: number;
}

/** An answer as the relay sends it to the agent: the service's as it came, or the relay's own. */
export interface RelayAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** The refusal's answer, carrying `requestId`. */
export function refusalAnswer(refusal: Refusal, requestId: string): RelayAnswer {
  const { status, code, message, details, retryAfterSeconds } = refusal;
  const body = { error: { code, message, ...(details ? { details } : {}) }, requestId };
  const headers: Record<string, string> = { "content-type": "application/json", "x-request-id": requestId };
  if (retryAfterSeconds !== undefined) headers["retry-after"] = String(retryAfterSeconds);
  return { status, headers, text: JSON.stringify(body) };
}

/** The answer as a `Response`. */
export function answerResponse(answer: RelayAnswer): Response {
  const empty = answer.status === 204 || answer.status === 304; // statuses without a body
  return new Response(empty ? null : answer.text, { status: answer.status, headers: answer.headers });
}

/** The refusal an error stands for: a service error with its code; anything else is the relay's bug. */
export function refusalOf(error: unknown): Refusal {
  if (error instanceof ServiceError) {
    return {
      status: STATUS_OF[error.code],
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
    };
  }
  if (error instanceof HTTPException && error.status < 500) {
    return { status: error.status, code: "invalid_request", message: "Invalid request" };
  }
  return { status: 500, code: "internal_error", message: "The relay failed to handle the call" };
}

/** 429 `relay_limit`: the run has made every call it may. */
export function relayLimit(maxCalls: number): Refusal {
  return {
    status: 429,
    code: "relay_limit",
    message: `This run may make at most ${maxCalls} LLM calls`,
    details: { maxCalls },
  };
}

/** 503 `unavailable`: the run has ended, or the gateway cannot be reached now. */
export function unavailable(message: string): Refusal {
  return { status: 503, code: "unavailable", message, retryAfterSeconds: 1 };
}
