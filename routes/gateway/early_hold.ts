/**
 * The early hold of `POST /v1/gateway/completions`: while the key's storage step (its check and
 * count) is in flight, the call's hold is reserved beside it, so a paid call waits for one storage
 * round trip before the provider instead of two (docs/gateway.md, "The early hold").
 *
 * It starts only for a key this instance recognises (`ApiKeyVerifier.recognise`: secret verified,
 * live, with `gateway:write`, under its rate limit as far as this instance knows) and a body it
 * can read safely before the gate (declared JSON with a Content-Length within the limit) that is
 * a valid call of a served model. The handler takes the hold over when the request gets that far
 * with the same amount; on every other answer (401, 429, 403 `miner_not_registered`, 503) it is
 * released before the answer goes out, so nobody pays for a refused call.
 */
import type { Context } from "hono";
import type { AskOrg } from "../../actors/billing/mod.ts";
import { completionHold, type ProviderCatalog } from "../../actors/gateway/mod.ts";
import { type Logger, ServiceError } from "../../actors/kernel/mod.ts";
import type { Alongside } from "../middleware/api_key_auth.ts";
import { isJsonContentType, readJsonBody } from "../middleware/json_body.ts";
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
 * not asked (the body is not a call it could hold for, or the request was answered first); or
 * unknown (the ask timed out or failed: a hold may exist).
 */
type Outcome =
  | { kind: "held" | "unknown"; amountMicro: bigint }
  | { kind: "refused"; amountMicro: bigint; refusal: ServiceError }
  | { kind: "not_asked" };

interface EarlyHold {
  orgId: string;
  holdId: string;
  outcome: Promise<Outcome>;
  /** The reserve was asked: from then on a hold may exist until the outcome says otherwise. */
  asked: boolean;
  /** The request was answered before the reserve was asked: it never will be. */
  cancelled: boolean;
  /** The handler took the hold over (it settles or releases it). */
  taken: boolean;
}

/**
 * Largest body held early. The early path checks the body against the schema once more than the
 * route does (a few µs of CPU a kilobyte here): beyond this the CPU costs more than the round trip
 * saved, and the handler reserves as before.
 */
const EARLY_MAX_BYTES = 64 * 1024;

/** Context variable of the request's early hold. */
const EARLY_HOLD = "gatewayEarlyHold";

/** The `Alongside` of the completion route: reserves the call's hold while the key is counted. */
export function earlyHold(deps: EarlyHoldDeps): Alongside {
  return (c, key) => {
    if (!readableEarly(c, deps.maxBodyBytes)) return null;
    const hold: EarlyHold = {
      orgId: key.orgId,
      holdId: holdIdFor(c.env.requestId),
      outcome: Promise.resolve({ kind: "not_asked" }),
      asked: false,
      cancelled: false,
      taken: false,
    };
    hold.outcome = reserveEarly(c, hold, deps);
    c.set(EARLY_HOLD, hold);
    return () => releaseUntaken(hold, deps, c.env.requestId);
  };
}

/**
 * The request's early hold of `amountMicro`, taken over by the caller, who settles or releases it
 * from now on: made (`reserved`), or of unknown outcome (the caller reserves again under its id:
 * a repeat answers the hold if the first ask made it, so the call never holds twice); or the
 * org's refusal of that same amount (the caller answers it: asking again would ask the same
 * question twice); null when there is none of these and the caller reserves its own.
 */
export async function takeEarlyHold(c: Context, amountMicro: bigint): Promise<TakenHold | null> {
  const hold = c.get(EARLY_HOLD) as EarlyHold | undefined;
  if (!hold || hold.taken) return null;
  const outcome = await hold.outcome;
  if (outcome.kind === "not_asked" || outcome.amountMicro !== amountMicro) return null;
  if (outcome.kind === "refused") return { refusal: outcome.refusal };
  hold.taken = true;
  return { holdId: hold.holdId, reserved: outcome.kind === "held" };
}

/**
 * True when the body may be read before the gate: declared JSON, with a Content-Length within the
 * limit and no other framing (the gate counts a streamed body as it reads it; here it is left to it).
 */
function readableEarly(c: Context, maxBodyBytes: number): boolean {
  const length = c.req.header("content-length");
  if (length === undefined || c.req.header("transfer-encoding") !== undefined) return false;
  const bytes = /^\d{1,12}$/.test(length) ? Number(length) : Infinity;
  return bytes <= Math.min(maxBodyBytes, EARLY_MAX_BYTES) &&
    isJsonContentType(c.req.header("content-type") ?? "");
}

/**
 * Reads and checks the body as the route will, and reserves its hold for the key's org — unless
 * the request was answered while the body was still arriving.
 */
async function reserveEarly(c: Context, hold: EarlyHold, deps: EarlyHoldDeps): Promise<Outcome> {
  const amountMicro = await holdOfBody(c, deps.catalog);
  if (amountMicro === null || hold.cancelled) return { kind: "not_asked" };
  hold.asked = true;
  try {
    await deps.askOrg(hold.orgId, { type: "reserve", amountMicro, holdId: hold.holdId });
    return { kind: "held", amountMicro };
  } catch (error) {
    const known = error instanceof ServiceError && error.code !== "unavailable" &&
      error.code !== "internal_error";
    return known ? { kind: "refused", amountMicro, refusal: error } : { kind: "unknown", amountMicro };
  }
}

/** The hold of the request's body; null when the body is not a valid call of a served model. */
async function holdOfBody(c: Context, catalog: ProviderCatalog): Promise<bigint | null> {
  try {
    // The gate waits for this same parse (its 400 if the body is not UTF-8 JSON).
    const parsed = completionRequestSchema.safeParse(await readJsonBody(c));
    if (!parsed.success) return null;
    const resolved = catalog.resolve(parsed.data.provider, parsed.data.model);
    if (parsed.data.maxTokens > resolved.maxOutputTokens) return null;
    return completionHold(resolved, adapterRequest(parsed.data)).costMicro;
  } catch {
    // Not UTF-8, not JSON, or a provider or model the catalog does not serve: the route answers it.
    return null;
  }
}

/**
 * Releases the hold unless the handler took it (a release of a hold never made is a no-op). A
 * reserve not asked yet never will be, so a refusal is not held back by a body still arriving;
 * one asked is waited for and released, before the answer goes out.
 */
async function releaseUntaken(hold: EarlyHold, deps: EarlyHoldDeps, requestId: string): Promise<void> {
  if (hold.taken) return;
  if (!hold.asked) return void (hold.cancelled = true);
  const outcome = await hold.outcome;
  if (hold.taken || (outcome.kind !== "held" && outcome.kind !== "unknown")) return;
  try {
    await deps.askOrg(hold.orgId, { type: "release", holdId: hold.holdId });
  } catch (error) {
    // The hold then expires and the hold-expiry job releases it: the org is never charged.
    deps.log({ level: "error", msg: "cannot release an early hold", requestId, error: String(error) });
  }
}
