import { z } from "zod";
import { isSs58Address } from "../../actors/kernel/mod.ts";
import type { ApiKeyAccess } from "../middleware/api_key_auth.ts";
import type { SignatureAccess } from "../middleware/key_or_signature.ts";
import { ASKS_ACTOR, defineRoute, jsonBody, jsonResponse } from "../http/openapi.ts";
import { freeText } from "../http/validation.ts";
import { minerHotkeyParam } from "../http/path_ids.ts";
import { AgentVersionSchema } from "../http/shared_schemas.ts";

/**
 * Body limit of an upload: a code of `maxAgentBytes` UTF-8 bytes fits however it is escaped in
 * JSON (at worst 6 bytes per byte, `\u0001`), plus 4 KiB for the other fields. The code's own limit
 * is checked on the decoded string (413 naming `sizeBytes`).
 */
export function uploadBodyLimit(maxAgentBytes: number): number {
  return 6 * maxAgentBytes + 4096;
}

const instant = z.string().meta({ description: "ISO 8601 UTC with milliseconds" });
const hotkeyString = z.string().meta({ description: "A miner hotkey: an SS58 address (prefix 42)." });

const uploadSchema = z.strictObject({
  code: z.string().meta({
    description: "The agent's Python 3 source, defining a top-level `def`/`async def agent_main` " +
      "(docs/agents.md). At most `FGW_AGENT_MAX_BYTES` UTF-8 bytes.",
  }),
  name: freeText({ max: 100 }).optional().meta({
    description: "Your label for the version.",
  }),
  minerHotkey: z.string().refine(isSs58Address, "must be an SS58 address (checksum included)").optional()
    .meta({
      description: "With an API key: the miner (registered to the key's organisation); default the key's " +
        "pinned miner, then the organisation's default miner. With a signature: the signer, or omitted.",
    }),
});

/** `POST /v1/agents/submit-agent`, taking an API key with `predictions:write` or a miner signature. */
export function submitAgentRoute(
  options: { keys: ApiKeyAccess; signature: SignatureAccess; maxAgentBytes: number },
) {
  return defineRoute({
    method: "post",
    path: "/submit-agent",
    tags: ["agents"],
    summary: "Upload a miner's Python agent",
    description: "One new version per miner per `FGW_AGENT_COOLDOWN_MS` (429 with `Retry-After`); the " +
      "miner's organisation needs a positive balance (402). Code identical to one of the miner's versions " +
      "answers that version (200) and changes nothing. docs/agents.md.",
    access: { apiKey: "predictions:write", keys: options.keys, signature: options.signature },
    errors: ["invalid_request", "miner_not_registered", "insufficient_credits", "payload_too_large"],
    maxBodyBytes: uploadBodyLimit(options.maxAgentBytes),
    request: { body: jsonBody(uploadSchema) },
    responses: {
      201: jsonResponse(AgentVersionSchema, "A new version, now the miner's current one."),
      200: jsonResponse(AgentVersionSchema, "The miner already has this code: that version, unchanged."),
    },
  });
}

const hotkeyPath = z.object({ hotkey: minerHotkeyParam });

export const MinerSchema = z.object({
  hotkey: hotkeyString,
  org: z.object({ id: z.string(), name: z.string(), registeredAt: instant }).nullable()
    .meta({ description: "The organisation the hotkey is registered to, if any." }),
  currentVersionId: z.string().nullable(),
  lastUploadAt: instant.nullable(),
  nextUploadAt: instant.nullable().meta({
    description: "When the cooldown lets a new version in (null: now).",
  }),
  versions: z.array(AgentVersionSchema).meta({ description: "Newest first, without code." }),
}).meta({ id: "Miner" });

export const getMinerRoute = defineRoute({
  method: "get",
  path: "/{hotkey}",
  tags: ["admin: miners"],
  summary: "Show a miner: its organisation and agent versions",
  access: "admin",
  errors: ASKS_ACTOR,
  request: { params: hotkeyPath },
  responses: { 200: jsonResponse(MinerSchema, "The miner (404 when neither registered nor ever uploaded).") },
});
