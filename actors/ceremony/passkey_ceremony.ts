import {
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import type { Clock } from "../kernel/mod.ts";
import { ceremonyRefusal } from "./ceremony_refusal.ts";
import { issueChallenge, redeemChallenge } from "./challenges.ts";
import type { ChallengePurpose, ChallengeStore } from "./challenge_store.ts";
import {
  PASSKEY_ALGORITHMS,
  type PasskeyUser,
  registrationOptions,
  signInOptions,
} from "./passkey_options.ts";
import {
  authenticationJson,
  type AuthenticationResponse,
  base64urlText,
  clientDataOf,
  registrationJson,
  type RegistrationResponse,
} from "./passkey_response.ts";
import type { PublicOrigin } from "./public_origin.ts";

/** What is stored of a registered passkey. */
export interface PasskeyCredential {
  /** The credential id, base64url (unique per authenticator; the lookup key at sign-in). */
  id: string;
  /** The COSE public key. */
  publicKey: Uint8Array;
  /** The signature counter last seen (0 for authenticators that keep none). */
  counter: number;
  /** How the browser may reach the authenticator (`internal`, `usb`, `hybrid`…). */
  transports: string[];
}

/** A stored passkey and the user handle it was registered for (`PasskeyUser.handle`). */
export interface StoredPasskey {
  credential: PasskeyCredential;
  userHandle: string;
}

/** A passkey sign-in that verified: whose passkey, and the counter to store in its place. */
export interface PasskeySignIn {
  credentialId: string;
  userHandle: string;
  /** Store this as the credential's counter (a later sign-in must show a larger one). */
  newCounter: number;
}

export interface PasskeyCeremonyOptions {
  /** `FGW_PUBLIC_URL`'s origin and relying party id (`publicOriginOf`). */
  origin: PublicOrigin;
  /** Shown by authenticators as the site's name. */
  rpName: string;
  challenges: ChallengeStore;
  clock: Clock;
}

/**
 * The two WebAuthn ceremonies of the dashboard (docs/dashboard.md, "Sign-in ceremonies"):
 * registering a passkey and signing in with one, each as options (with a fresh challenge bound to
 * the asking browser session) then verification of the browser's answer. `browser` is the
 * browser session's id; the storage of passkeys and the session made at sign-in are the caller's.
 */
export class PasskeyCeremony {
  readonly #options: PasskeyCeremonyOptions;

  constructor(options: PasskeyCeremonyOptions) {
    this.#options = options;
  }

  /** Options for registering a passkey for `user` (the challenge is bound to `user.handle`). */
  async registrationOptions(
    browser: string,
    user: PasskeyUser,
    options: { excludeCredentialIds?: readonly string[] } = {},
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const { challenges, clock, origin, rpName } = this.#options;
    const challenge = await issueChallenge(challenges, {
      purpose: "passkey_registration",
      browser,
      subject: user.handle,
      nowMs: clock(),
    });
    return await registrationOptions(origin, { rpName, user, challenge, ...options });
  }

  /**
   * Verifies the browser's answer to `registrationOptions` for the user of `userHandle`: the
   * challenge (used up whatever follows), the origin, then the attestation (relying party, user
   * present and verified, an accepted algorithm). Answers the credential to store; throws the
   * 401 refusal otherwise.
   */
  async verifyRegistration(
    browser: string,
    response: RegistrationResponse,
    { userHandle }: { userHandle: string },
  ): Promise<PasskeyCredential> {
    const challenge = await this.#redeem(browser, response.response.clientDataJSON, {
      purpose: "passkey_registration",
      subject: userHandle,
    });
    const { origin, rpId } = this.#options.origin;
    const verified = await verifyRegistrationResponse({
      response: registrationJson(response),
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpId,
      requireUserVerification: true,
      supportedAlgorithmIDs: [...PASSKEY_ALGORITHMS],
    }).catch(() => null);
    if (!verified?.verified) throw ceremonyRefusal("response");
    const { credential } = verified.registrationInfo;
    return {
      id: credential.id,
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: credential.transports ?? response.response.transports ?? [],
    };
  }

  /** Options for signing in with a discoverable passkey (no user named first). */
  async signInOptions(browser: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const { challenges, clock, origin } = this.#options;
    const challenge = await issueChallenge(challenges, {
      purpose: "passkey_sign_in",
      browser,
      nowMs: clock(),
    });
    return await signInOptions(origin, challenge);
  }

  /**
   * Verifies the browser's answer to `signInOptions`: the challenge (used up whatever follows),
   * the origin, a registered passkey (`find` by credential id) whose user handle is the one the
   * authenticator returned, then the assertion (signature, relying party, user verified, and a
   * counter larger than the stored one when either is not 0). Throws the 401 refusal otherwise.
   */
  async verifySignIn(
    browser: string,
    response: AuthenticationResponse,
    { find }: { find: (credentialId: string) => Promise<StoredPasskey | null> },
  ): Promise<PasskeySignIn> {
    const challenge = await this.#redeem(browser, response.response.clientDataJSON, {
      purpose: "passkey_sign_in",
      subject: "",
    });
    const stored = await find(response.id);
    const handle = response.response.userHandle;
    if (stored === null || handle === undefined || base64urlText(handle) !== stored.userHandle) {
      throw ceremonyRefusal("passkey");
    }
    const { origin, rpId } = this.#options.origin;
    const { credential } = stored;
    const verified = await verifyAuthenticationResponse({
      response: authenticationJson(response),
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpId,
      credential: { ...credential, publicKey: new Uint8Array(credential.publicKey) },
      requireUserVerification: true,
    }).catch(() => null);
    if (!verified?.verified) throw ceremonyRefusal("response");
    const { credentialID, newCounter } = verified.authenticationInfo;
    return { credentialId: credentialID, userHandle: stored.userHandle, newCounter };
  }

  /**
   * The challenge `clientDataJSON` answers, used up (`redeemChallenge`), once the client data is
   * checked for the public origin. A response for another origin still uses up its challenge.
   */
  async #redeem(
    browser: string,
    clientDataJSON: string,
    scope: { purpose: ChallengePurpose; subject: string },
  ): Promise<string> {
    const clientData = clientDataOf(clientDataJSON);
    if (clientData === null) throw ceremonyRefusal("response");
    await redeemChallenge(this.#options.challenges, clientData.challenge, {
      ...scope,
      browser,
      nowMs: this.#options.clock(),
    });
    if (clientData.origin !== this.#options.origin.origin) throw ceremonyRefusal("origin");
    return clientData.challenge;
  }
}
