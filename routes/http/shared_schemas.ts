/**
 * The wire schemas more than one route area shows: an event (the catalog, the validators' lease,
 * the customer predictions), a validator's signature headers (every validator-signed route), a
 * money amount (billing and the gateway), an API key (its admin routes and the organisation's), a
 * miner's agent version (the agent routes and the miner's public page) and a scored event with its
 * miners' results (the scored events and an event's own route).
 * An area takes them from here, never from another area's files.
 */
import { z } from "zod";
import { isoAt } from "../../actors/kernel/mod.ts";
import type { AgentVersion } from "../../storage/agent_store.ts";
import { API_KEY_SCOPES } from "../../storage/api_key_store.ts";

const instant = z.string().meta({
  description: "ISO 8601 UTC with milliseconds",
  example: "2026-11-21T06:00:00.000Z",
});
const prices = z.record(z.string(), z.number()).meta({ description: "Price (0..1) by outcomeId." });

/** An event as `/v1/events` serves it (storage/event_record.ts; docs/events.md). */
export const EventSchema = z.object({
  id: z.string(),
  source: z.string().meta({ description: "Where the event came from: `polymarket` or `snapshot`." }),
  sourceMarketId: z.string(),
  question: z.string(),
  description: z.string(),
  outcomes: z.array(z.object({ outcomeId: z.string(), name: z.string() })),
  endDate: instant,
  startDate: instant,
  tagsAtAdmission: z.array(z.number().int()),
  liquidityUsd: z.number(),
  volumeUsd: z.number(),
  volumeRecentUsd: z.number(),
  currentLiquidityUsd: z.number(),
  currentVolumeUsd: z.number(),
  currentOutcomePrices: prices,
  admittedAt: instant,
  lastSeenAt: instant,
  resolution: z.object({
    resolvedAt: instant.nullable(),
    resolutionStatus: z.enum(["unresolved", "resolved", "voided"]),
    winningOutcomeId: z.string().nullable(),
    winningOutcomeName: z.string().nullable(),
    finalOutcomePrices: prices.nullable(),
  }),
  outcomePricesAtAdmission: prices,
}).meta({ id: "Event" });

/** The signature headers of a validator request, documented as parameters (the middleware checks them). */
export const ValidatorSignatureHeaders = z.object({
  "x-validator-hotkey": z.string().meta({ description: "SS58 hotkey (prefix 42) of the signing validator." }),
  "x-validator-nonce": z.string().meta({ description: "16..128 printable ASCII characters; single use." }),
  "x-validator-timestamp": z.string().meta({ description: "Unix epoch milliseconds." }),
  "x-validator-signature": z.string().meta({
    description: "Hex sr25519 signature (`0x` optional) over the canonical message (docs/signatures.md).",
  }),
});

/** A money amount as the API sends it: a signed decimal string of micro-units (docs/billing.md, "Money"). */
export function microString(description: string) {
  return z.string().meta({
    description: `${description} Micro-units, a decimal string.`,
    example: "1500000",
  });
}

/** One scope of an API key, by name. */
export const apiKeyScope = z.enum(API_KEY_SCOPES, { error: `must be one of: ${API_KEY_SCOPES.join(", ")}` });

const keyInstant = z.string().meta({ description: "ISO 8601 UTC with milliseconds" });

/** An API key as the admin API shows it: never its secret (storage `ApiKeySummary`). */
export const ApiKeySummarySchema = z.object({
  keyId: z.string(),
  orgId: z.string(),
  name: z.string(),
  scopes: z.array(apiKeyScope),
  rateLimitRpm: z.number().int(),
  pinnedMinerHotkey: z.string().optional(),
  expiresAt: keyInstant.optional(),
  createdAt: keyInstant,
  revokedAt: keyInstant.optional(),
  lastUsedAt: keyInstant.optional().meta({
    description: "First use in the latest rate-limit window that counted one.",
  }),
}).meta({ id: "ApiKey" });

/**
 * The LLM calls of a prediction's lease, as the service's usage records show them when read (a call
 * settled after the submission counts; never the validator's report): docs/scoring.md.
 */
export const llmUsageFields = {
  llmCalls: z.number().int().meta({
    description: "Charged LLM calls (validator completions) made under the prediction's lease.",
  }),
  llmCostMicro: microString("What those calls were charged."),
};

/** A miner's agent version as the API shows it: its digest and size, never its code. */
export const AgentVersionSchema = z.object({
  versionId: z.string(),
  minerHotkey: z.string().meta({ description: "A miner hotkey: an SS58 address (prefix 42)." }),
  sha256: z.string().meta({ description: "Lowercase hex SHA-256 of the code's UTF-8 bytes." }),
  sizeBytes: z.number().int().meta({ description: "Size of the code in UTF-8 bytes." }),
  name: z.string().nullable(),
  createdAt: instant,
  current: z.boolean().meta({ description: "Whether validators run this version: the miner's newest." }),
}).meta({ id: "AgentVersion" });

/** A version as the API shows it (never its code). */
export function versionJson(version: AgentVersion, current: boolean) {
  return {
    versionId: version.versionId,
    minerHotkey: version.minerHotkey,
    sha256: version.sha256,
    sizeBytes: version.sizeBytes,
    name: version.name,
    createdAt: isoAt(version.createdAtMs),
    current,
  };
}
const probability = z.number().nullable();

export const MinerResultSchema = z.object({
  uid: z.number().int(),
  hotkey: z.string(),
  pWin: probability.meta({ description: "r6(p′ of the winner); null when invalid." }),
  brier: probability.meta({
    description: "r6((1 − pWin)²), the value the leaderboard scores; null when invalid.",
  }),
  called: z.boolean().nullable().meta({ description: "Named the winner; null when invalid." }),
  invalid: z.boolean(),
  predictedAt: instant.meta({ description: "The server's receipt time." }),
  ...llmUsageFields,
}).meta({ id: "MinerResult" });

export const ScoredEventSchema = z.object({
  eventId: z.string(),
  source: z.string(),
  sourceMarketId: z.string(),
  question: z.string(),
  resolvedAt: instant,
  scoredAt: instant.meta({ description: "When a scoring run last changed this event's rows." }),
  winningOutcome: z.object({ outcomeId: z.string(), name: z.string() }),
  marketPWinAtAdmission: z.number(),
  stats: z.object({
    scored: z.number().int(),
    valid: z.number().int(),
    meanBrier: z.number().nullable(),
    calledRate: z.number().nullable(),
    bestUid: z.number().int().nullable(),
  }),
  miners: z.array(MinerResultSchema).meta({
    description: "Best Brier first, invalid last (then uid); the requested miner's row always.",
  }),
}).meta({ id: "ScoredEvent" });
