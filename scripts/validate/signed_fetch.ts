/**
 * A request to the gateway signed as the validator (docs/signatures.md): every signed request of
 * `deno task validate` goes this way — the lease, the submission, and the LLM calls its relay
 * forwards for an agent.
 */
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { type Signer, signRequest } from "../../actors/validators/mod.ts";

/** What signing and sending a request needs. */
export interface SigningDeps {
  /** The gateway's base URL, e.g. `http://127.0.0.1:8080`. */
  base: string;
  signer: Signer;
  fetch(url: string, init: RequestInit): Promise<Response>;
  /** Epoch milliseconds, for the signatures' timestamps. */
  nowMs(): number;
}

/** One signed request. */
export interface SignedCall {
  method: string;
  path: string;
  /** The JSON body, sent as these exact UTF-8 bytes (the signature covers them). */
  body?: string;
  /** The miner the validator acts for (`x-miner-hotkey`, part of the signed message). */
  minerHotkey?: string;
  /** Headers sent beside the signature's (not signed), e.g. `x-request-id`. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** `path` under `base`: a base with a path keeps it. */
export function gatewayUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}${path}`;
}

/** Sends `call` signed as `deps.signer` in the validator role; the answer whatever its status. */
export function signedFetch(deps: SigningDeps, call: SignedCall): Promise<Response> {
  const url = gatewayUrl(deps.base, call.path);
  const signed = signRequest(deps.signer, {
    method: call.method,
    url,
    ...(call.body === undefined ? {} : { body: call.body }),
    ...(call.minerHotkey === undefined ? {} : { minerHotkey: call.minerHotkey }),
  }, { role: "validator", nowMs: deps.nowMs() });
  const headers = {
    ...call.headers,
    ...signed,
    ...(call.body === undefined ? {} : { "content-type": "application/json" }),
  };
  return deps.fetch(url, {
    method: call.method,
    headers,
    ...(call.body === undefined ? {} : { body: utf8ToBytes(call.body) }),
    ...(call.signal ? { signal: call.signal } : {}),
  });
}
