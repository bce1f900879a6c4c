import type { AnswerEnv } from "./answer.ts";

/**
 * The Hono environment every sub-app shares: the bindings the front door (routes/front_door.ts)
 * passes with each request: its request id, its answer headers (routes/http/answer.ts) and, under
 * `Deno.serve`, the connecting address.
 */
export type AppEnv = { Bindings: AnswerEnv };

/** The request id the front door gave the request ("" outside it). */
export function requestIdOf(c: { env: unknown }): string {
  const env = c.env as { requestId?: unknown } | undefined;
  return typeof env?.requestId === "string" ? env.requestId : "";
}
