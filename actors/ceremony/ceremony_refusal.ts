import { ServiceError } from "../kernel/mod.ts";

/**
 * Why a ceremony refused its answer (`details.refused` of the 401): the challenge is unknown, used,
 * expired, another browser's or for another purpose; the browser's origin is not the public one;
 * the passkey is not registered, or not the user it names; the WebAuthn response does not verify
 * (a signature, the relying party, user verification, a counter that did not grow); the hotkey's
 * signature does not verify over the message the server built.
 */
export type RefusalReason = "challenge" | "origin" | "passkey" | "response" | "signature";

const MESSAGES: Record<RefusalReason, string> = {
  challenge: "Challenge is unknown, used, expired or not this browser's: start again",
  origin: "Response was made for another origin than this service's",
  passkey: "Passkey is not registered here",
  response: "Passkey response does not verify",
  signature: "Signature does not verify for the hotkey and message",
};

/** 401 `unauthenticated` with `details.refused` naming the reason; never echoes the input. */
export function ceremonyRefusal(reason: RefusalReason): ServiceError {
  return new ServiceError("unauthenticated", MESSAGES[reason], { details: { refused: reason } });
}
