/**
 * The early hold of `POST /v1/gateway/completions`: while the key's storage step (its check and
 * count) is in flight, the call's hold is reserved beside it, so a paid call waits for one storage
 * round trip before the provider instead of two (docs/gateway.md, "The early hold").
 *
 * It starts only for a key this instance recognises (secret verified, live, with `gateway:write`,
 * not over its rate limit at its last count here) and a body it can read safely before the gate
 * (declared JSON with a Content-Length within the limit) that is a valid request for a served
 * model. The handler takes the hold over when the request gets that far with the same amount; on
 * every other answer (401, 429, 403, 400, 413, 415) it is released once the request is answered,
 * so nobody pays for a refused call. Until then it counts in the org's held money like any hold.
 */
import type { Context } from "hono";
import type { AskOrg } from "../../actors/billing/mod.ts";
import { completionHold, type ProviderCatalog } from "../../actors/gateway/mod.ts";
import { type Logger, ServiceError } from "../../actors/kernel/mod.ts";
import type { AuthenticatedKey } from "../../actors/keys/mod.ts";
import type { Alongside } from "../middleware/api_key_auth.ts";
import { isJsonContentType } from "../middleware/json_body.ts";
import { adapterRequest, holdIdFor, type TakenHold } from "./billed_call.ts";
import { completionRequestSchema } from "./gateway_api.ts";

export interface EarlyHoldDeps {
  catalog: ProviderCatalog;
  askOrg: AskOrg;
  log: Logger;
  /** The route's body limit: a larger body is left to the gate (413). */
  maxBodyBytes: number;
}

/**
 * What became of the reserve: made; refused by the org (nothing held: `refusal`, such as 402);
 * not asked (the body is not a call it could hold for); or unknown (a hold may exist).
 */
type Outcome =
  | { kind: "held"; amountMicro: bigint }
  | { kind: "refused"; amountMicro: bigint; refusal: ServiceError }
  | { kind: "not_asked" }
  | { kind: "unknown" };

interface EarlyHold {
  orgId: string;
  holdId: string;
  outcome: Promise<Outcome>;
  taken: boolean;
}

/** Context variable of the request's early hold. */
const EARLY_HOLD = "gatewayEarlyHold";

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The `Alongside` of the completion route: reserves the call's hold while the key is counted. */
export function earlyHold(deps: EarlyHoldDeps): Alongside {
  return (c, key) => {
    if (!readableEarly(c, deps.maxBodyBytes)) return null;
    const holdId = holdIdFor(c.env.requestId);
    const hold: EarlyHold = {
      orgId: key.orgId,
      holdId,
      outcome: reserveEarly(c, key, holdId, deps),
      taken: false,
    };
    c.set(EARLY_HOLD, hold);
    return () => releaseUntaken(hold, deps, c.env.requestId);
  };
}

/**
 * The request's early hold of `amountMicro`, taken over by the caller, who settles or releases it
 * from now on; or the org's refusal of that same amount (the caller answers it: reserving again
 * would ask the same question twice); null when there is neither and the caller reserves.
 */
export async function takeEarlyHold(c: Context, amountMicro: bigint): Promise<TakenHold | null> {
  const hold = c.get(EARLY_HOLD) as EarlyHold | undefined;
  if (!hold || hold.taken) return null;
  const outcome = await hold.outcome;
  if (outcome.kind === "refused" && outcome.amountMicro === amountMicro) return { refusal: outcome.refusal };
  if (outcome.kind !== "held" || outcome.amountMicro !== amountMicro) return null;
  hold.taken = true;
  return { holdId: hold.holdId };
}

/**
 * True when the body may be read before the gate: declared JSON, with a Content-Length within the
 * limit and no other framing (the gate counts a streamed body as it reads it; here it is left to it).
 */
function readableEarly(c: Context, maxBodyBytes: number): boolean {
  const length = c.req.header("content-length");
  if (length === undefined || c.req.header("transfer-encoding") !== undefined) return false;
  const bytes = /^\d{1,12}$/.test(length) ? Number(length) : Infinity;
  return bytes <= maxBodyBytes && isJsonContentType(c.req.header("content-type") ?? "");
}

/** Reads and checks the body as the route will, and reserves its hold for the key's org. */
async function reserveEarly(
  c: Context,
  key: AuthenticatedKey,
  holdId: string,
  deps: EarlyHoldDeps,
): Promise<Outcome> {
  const amountMicro = await holdOfBody(c, deps.catalog);
  if (amountMicro === null) return { kind: "not_asked" };
  try {
    await deps.askOrg(key.orgId, { type: "reserve", amountMicro, holdId });
    return { kind: "held", amountMicro };
  } catch (error) {
    const known = error instanceof ServiceError && error.code !== "unavailable" &&
      error.code !== "internal_error";
    return known ? { kind: "refused", amountMicro, refusal: error } : { kind: "unknown" };
  }
}

/** The hold of the request's body; null when the body is not a valid call of a served model. */
async function holdOfBody(c: Context, catalog: ProviderCatalog): Promise<bigint | null> {
  try {
    // Hono keeps the bytes: the gate and the validator read these same bytes again.
    const value: unknown = JSON.parse(STRICT_UTF8.decode(await c.req.arrayBuffer()));
    const parsed = completionRequestSchema.safeParse(value);
    if (!parsed.success) return null;
    const resolved = catalog.resolve(parsed.data.provider, parsed.data.model);
    if (parsed.data.maxTokens > resolved.maxOutputTokens) return null;
    return completionHold(resolved, adapterRequest(parsed.data)).costMicro;
  } catch {
    // Not UTF-8, not JSON, or a provider or model the catalog does not serve: the route answers it.
    return null;
  }
}

/** Releases the hold unless the handler took it (a release of a hold never made is a no-op). */
async function releaseUntaken(hold: EarlyHold, deps: EarlyHoldDeps, requestId: string): Promise<void> {
  if (hold.taken) return;
  const outcome = await hold.outcome;
  if (hold.taken || (outcome.kind !== "held" && outcome.kind !== "unknown")) return;
  try {
    await deps.askOrg(hold.orgId, { type: "release", holdId: hold.holdId });
  } catch (error) {
    // The hold then expires and the hold-expiry job releases it: the org is never charged.
    deps.log({ level: "error", msg: "cannot release an early hold", requestId, error: String(error) });
  }
}
