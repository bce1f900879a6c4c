/**
 * A passkey made in software (an ES256 key in WebCrypto) for HTTP tests of sign-in: it answers the
 * sign-in options the way an authenticator does (user present and verified), so the service's own
 * verification accepts it. Browser tests use Chromium's virtual authenticator instead.
 */
import { base64urlnopad } from "@scure/base";
import { sha256 } from "@noble/hashes/sha2.js";
import { concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import type { AuthenticationResponse } from "../../actors/ceremony/mod.ts";

export class SoftPasskey {
  readonly credentialId: string;
  readonly #keys: CryptoKeyPair;
  readonly #userHandle: string;
  #counter = 0;

  private constructor(credentialId: string, keys: CryptoKeyPair, userHandle: string) {
    this.credentialId = credentialId;
    this.#keys = keys;
    this.#userHandle = userHandle;
  }

  /** A new passkey of the member `userHandle` (its credential id random). */
  static async create(userHandle: string): Promise<SoftPasskey> {
    const keys = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ]);
    const id = base64urlnopad.encode(crypto.getRandomValues(new Uint8Array(16)));
    return new SoftPasskey(id, keys, userHandle);
  }

  /** The public key as COSE (EC2, ES256, P-256), as a registration stores it. */
  async publicKeyCose(): Promise<Uint8Array> {
    const raw = new Uint8Array(await crypto.subtle.exportKey("raw", this.#keys.publicKey));
    const x = raw.slice(1, 33);
    const y = raw.slice(33, 65);
    return concatBytes(
      new Uint8Array([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]),
      x,
      new Uint8Array([0x22, 0x58, 0x20]),
      y,
    );
  }

  /** The authenticator's answer to a sign-in challenge on `origin` (its counter grows by one). */
  async answer(challenge: string, origin: string): Promise<AuthenticationResponse> {
    const rpId = new URL(origin).hostname;
    const clientData = utf8ToBytes(
      JSON.stringify({ type: "webauthn.get", challenge, origin, crossOrigin: false }),
    );
    this.#counter += 1;
    const counter = new Uint8Array(4);
    new DataView(counter.buffer).setUint32(0, this.#counter);
    // Flags: user present (0x01) and user verified (0x04).
    const authData = concatBytes(sha256(utf8ToBytes(rpId)), new Uint8Array([0x05]), counter);
    const signed = concatBytes(authData, sha256(clientData));
    const p1363 = new Uint8Array(
      await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, this.#keys.privateKey, signed),
    );
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: "public-key",
      response: {
        clientDataJSON: base64urlnopad.encode(clientData),
        authenticatorData: base64urlnopad.encode(authData),
        signature: base64urlnopad.encode(derSignature(p1363)),
        userHandle: base64urlnopad.encode(utf8ToBytes(this.#userHandle)),
      },
      clientExtensionResults: {},
    };
  }
}

/** WebAuthn's ES256 signatures are DER `SEQUENCE { r INTEGER, s INTEGER }`; WebCrypto's are r‖s. */
function derSignature(p1363: Uint8Array): Uint8Array {
  const integer = (bytes: Uint8Array) => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start++;
    const trimmed = bytes.slice(start);
    const body = trimmed[0]! & 0x80 ? concatBytes(new Uint8Array([0]), trimmed) : trimmed;
    return concatBytes(new Uint8Array([0x02, body.length]), body);
  };
  const sequence = concatBytes(integer(p1363.slice(0, 32)), integer(p1363.slice(32)));
  return concatBytes(new Uint8Array([0x30, sequence.length]), sequence);
}
