import type { Context } from "hono";
import { type Clock, ServiceError } from "../../actors/kernel/mod.ts";
import {
  checkWindow,
  type MetagraphView,
  parseSignatureHeaders,
  requestTarget,
  type SignatureHeaders,
  type Sr25519Verify,
  verifySignature,
} from "../../actors/validators/mod.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import type { SignatureAccess } from "./key_or_signature.ts";

/** What the signature checks read of the metagraph (`MetagraphView`). */
export type SignerMetagraph = Pick<MetagraphView, "requireFresh" | "neuron">;

/**
 * Step 7 of docs/signatures.md's order: uses the nonce up for the hotkey, atomically across instances (shared
 * storage, kept at least twice the window); a nonce used before → 401 `nonce_reused`. A service
 * that cannot protect against replays answers 503 `not_ready` here instead.
 */
export type ConsumeNonce = (hotkey: string, nonce: string) => Promise<void>;

export interface MinerSignatureDeps {
  verify: Sr25519Verify;
  clock: Clock;
  /** Allowed |now − timestamp| (`FGW_SIG_WINDOW_MS`). */
  windowMs: number;
  metagraph: SignerMetagraph;
  consumeNonce: ConsumeNonce;
  orgs: Pick<OrgStore, "minerRegistration">;
}

/** The miner who signed a request, registered to `orgId`. */
export interface SignedMiner {
  hotkey: string;
  orgId: string;
}

const PENDING = "minerSignature";
/** Context variable the route reads: the `SignedMiner` of a signed request. */
export const SIGNED_MINER = "signedMiner";

/**
 * Miner signatures (domain `forecasting-gateway/miner/v1`) in the order of docs/signatures.md: headers well
 * formed → timestamp window → metagraph fresh (503) → hotkey in the metagraph (403) → then, once
 * the body gate has read the raw body: signature → nonce → the signer registered to an org (else
 * 403 `miner_not_registered`). Sets `c.get("signedMiner")`. Miners have no permit step and
 * no per-hotkey request rate: their one write is the agent upload, which has its own cooldown.
 */
export function minerSignatureAccess(deps: MinerSignatureDeps): SignatureAccess {
  return {
    role: "miner",
    errors: [
      "unauthenticated",
      "invalid_request",
      "timestamp_out_of_window",
      "metagraph_unavailable",
      "hotkey_not_in_metagraph",
      "invalid_signature",
      "nonce_reused",
      "not_ready",
      "miner_not_registered",
    ],
    beforeBody: async (c, next) => {
      const headers = parseSignatureHeaders((name) => c.req.header(name), "miner");
      const nowMs = deps.clock();
      checkWindow(headers, { nowMs, windowMs: deps.windowMs });
      requireInMetagraph(deps.metagraph, headers.hotkey, nowMs);
      c.set(PENDING, headers);
      await next();
    },
    afterBody: async (c, next) => {
      const headers = c.get(PENDING) as SignatureHeaders;
      const body = new Uint8Array(await c.req.arrayBuffer());
      verifySignature(headers, { method: c.req.method, target: requestTarget(c.req.url), body }, deps);
      await deps.consumeNonce(headers.hotkey, headers.nonce);
      c.set(SIGNED_MINER, await registeredMiner(deps.orgs, headers.hotkey));
      await next();
    },
  };
}

/** Steps 3–4: a fresh metagraph (else 503 `metagraph_unavailable`) that holds the hotkey (else 403). */
export function requireInMetagraph(metagraph: SignerMetagraph, hotkey: string, nowMs: number): void {
  metagraph.requireFresh(nowMs);
  if (metagraph.neuron(hotkey) === undefined) {
    throw new ServiceError("hotkey_not_in_metagraph", "The signing hotkey is not in the metagraph", {
      details: { hotkey },
    });
  }
}

async function registeredMiner(orgs: MinerSignatureDeps["orgs"], hotkey: string): Promise<SignedMiner> {
  const registration = await orgs.minerRegistration(hotkey);
  if (!registration) {
    throw new ServiceError(
      "miner_not_registered",
      "The signing miner hotkey is not registered to an organisation",
      {
        details: { minerHotkey: hotkey },
      },
    );
  }
  return { hotkey, orgId: registration.orgId };
}

/** The signed miner of a request that passed `minerSignatureAccess`, or undefined for an API-key request. */
export function signedMinerOf(c: Context): SignedMiner | undefined {
  return c.get(SIGNED_MINER) as SignedMiner | undefined;
}
