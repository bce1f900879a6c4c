/**
 * The relay's routes (docs/agents.md, "LLM calls"): `POST /v1/gateway/completions` behind the
 * service's own JSON gate (415, 413 beyond the body limit, 400 for bytes that are not UTF-8 JSON)
 * and strict schema (400 naming any other field: `minerHotkey`, `agentPredictionId`, `stream`, …),
 * and `GET /v1/gateway/providers`. Every other path is 404.
 */
import { Hono } from "hono";
import { every } from "hono/combine";
import { agentCompletionRequestSchema } from "../../../routes/gateway/gateway_api.ts";
import { jsonBodyGate, parsedJsonBody } from "../../../routes/middleware/json_body.ts";
import { parseOrThrow } from "../../../routes/http/validation.ts";
import { answerResponse, refusalAnswer, refusalOf } from "./refusal.ts";
import type { RelayCalls } from "./relay_calls.ts";

/** The bindings each request gets: the id the relay gave it. */
export type RelayEnv = { Bindings: { requestId: string } };

const NOT_FOUND = {
  status: 404,
  code: "not_found",
  message: "Not found: the relay serves POST /v1/gateway/completions and GET /v1/gateway/providers",
};

/** The relay's app over `calls`, bodies within `maxBodyBytes`. */
export function relayApp(calls: RelayCalls, options: { maxBodyBytes: number }): Hono<RelayEnv> {
  const gate = every(...jsonBodyGate(options.maxBodyBytes));
  return new Hono<RelayEnv>()
    .post("/v1/gateway/completions", gate, async (c) => {
      const body = parseOrThrow(agentCompletionRequestSchema, parsedJsonBody(c), "body");
      return answerResponse(await calls.complete(body, c.env.requestId));
    })
    .get("/v1/gateway/providers", async (c) => answerResponse(await calls.providers(c.env.requestId)))
    .notFound((c) => answerResponse(refusalAnswer(NOT_FOUND, c.env.requestId)))
    .onError((error, c) => answerResponse(refusalAnswer(refusalOf(error), c.env.requestId)));
}
