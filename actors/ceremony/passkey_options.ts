import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { base64urlnopad } from "@scure/base";
import { CHALLENGE_TTL_MS } from "./challenges.ts";
import type { PublicOrigin } from "./public_origin.ts";

/** The public key algorithms offered and accepted: Ed25519, ES256 (P-256), RS256. */
export const PASSKEY_ALGORITHMS: readonly number[] = [-8, -7, -257];

/** Whom a passkey is registered for. */
export interface PasskeyUser {
  /**
   * The WebAuthn user handle, as text (a member id: opaque, at most 64 bytes of UTF-8, never an
   * e-mail or a name): the authenticator returns it at sign-in.
   */
  handle: string;
  /** Shown by the authenticator to tell its passkeys apart (a member's e-mail or name). */
  name: string;
  displayName: string;
}

export interface RegistrationOptionsInput {
  /** Shown by the authenticator as the site's name. */
  rpName: string;
  user: PasskeyUser;
  /** The issued challenge (`issueChallenge`): sent as its bytes, so the options carry it as issued. */
  challenge: string;
  /** The credential ids the user already has, so the authenticator makes no second one. */
  excludeCredentialIds?: readonly string[];
}

/** The bytes of an issued challenge (the library would take a string as UTF-8 text). */
function challengeBytes(challenge: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(base64urlnopad.decode(challenge));
}

/** Most bytes of a user handle (WebAuthn's limit). */
const MAX_HANDLE_BYTES = 64;

/**
 * The options of `navigator.credentials.create` (as JSON): user verification required, a
 * discoverable (resident) credential required, attestation `none`, the relying party id of the
 * public origin, and a timeout of the challenge's lifetime.
 */
export async function registrationOptions(
  origin: PublicOrigin,
  input: RegistrationOptionsInput,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const userID = utf8ToBytes(input.user.handle);
  if (userID.length === 0 || userID.length > MAX_HANDLE_BYTES) {
    throw new RangeError(`Invalid user handle: expected 1 to ${MAX_HANDLE_BYTES} bytes`);
  }
  return await generateRegistrationOptions({
    rpName: input.rpName,
    rpID: origin.rpId,
    userID,
    userName: input.user.name,
    userDisplayName: input.user.displayName,
    challenge: challengeBytes(input.challenge),
    timeout: CHALLENGE_TTL_MS,
    attestationType: "none",
    excludeCredentials: (input.excludeCredentialIds ?? []).map((id) => ({ id })),
    authenticatorSelection: {
      residentKey: "required",
      requireResidentKey: true,
      userVerification: "required",
    },
    supportedAlgorithmIDs: [...PASSKEY_ALGORITHMS],
  });
}

/**
 * The options of `navigator.credentials.get` (as JSON) for a discoverable credential: no
 * `allowCredentials` (the authenticator offers the passkeys it holds for the relying party, no
 * user name asked first), user verification required.
 */
export async function signInOptions(
  origin: PublicOrigin,
  challenge: string,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return await generateAuthenticationOptions({
    rpID: origin.rpId,
    challenge: challengeBytes(challenge),
    timeout: CHALLENGE_TTL_MS,
    userVerification: "required",
  });
}
