/**
 * What tests use to talk to a run's relay on its Unix socket, as an agent would: one connection per
 * request, with `node:http` (Deno's fetch over a Unix socket holds threads of the runtime's blocking
 * pool for seconds after a burst of connections, which stalls the test's file operations).
 */
import http from "node:http";

export interface RelayRequest {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
}

export interface RelayReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The text parsed as JSON (null when it is not JSON). */
  json: Record<string, unknown>;
}

/** Sends one request to the relay at `socketPath` (default `POST /v1/gateway/completions` as JSON). */
export function relayRequest(socketPath: string, request: RelayRequest = {}): Promise<RelayReply> {
  const { method = "POST", path = "/v1/gateway/completions", body } = request;
  const headers = request.headers ?? (body === undefined ? {} : { "content-type": "application/json" });
  return new Promise((resolve, reject) => {
    const sent = http.request({ socketPath, path, method, headers, agent: false }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => text += chunk);
      response.on("end", () => resolve(reply(response, text)));
      response.on("error", reject);
    });
    sent.on("error", reject);
    sent.end(body);
  });
}

function reply(response: http.IncomingMessage, text: string): RelayReply {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text);
  } catch {
    json = {};
  }
  return { status: response.statusCode ?? 0, headers: response.headers, text, json };
}

/** POSTs `body` to the relay's completions route. */
export function postCompletion(
  socketPath: string,
  body: string,
  headers?: Record<string, string>,
): Promise<RelayReply> {
  return relayRequest(socketPath, { body, ...(headers ? { headers } : {}) });
}

/** The error code of a refusal's body. */
export function errorCode(reply: RelayReply): string {
  return String((reply.json.error as { code?: unknown } | undefined)?.code);
}

/** An agent's completion body (echo provider) with `content`, and `extra` fields merged in. */
export function agentBody(content = "Will it rain?", extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    provider: "echo",
    model: "echo-1",
    messages: [{ role: "user", content }],
    maxTokens: 16,
    ...extra,
  });
}

/** Polls `done` until it holds (fails after 10 s): waiting for another side, never a timed assertion. */
export async function waitUntil(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1_000; i++) {
    if (done()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Timed out waiting until ${what}`);
}
