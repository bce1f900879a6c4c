import { base64urlnopad } from "@scure/base";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { z } from "zod";

/** base64url without padding, at most `max` characters. */
function base64url(max: number) {
  return z.string().min(1).max(max).regex(/^[A-Za-z0-9_-]+$/, "Expected base64url without padding");
}

/** A credential id: at most 1023 bytes (WebAuthn's limit), 1364 characters of base64url. */
const CredentialId = base64url(1364);
const Transports = z.array(z.string().min(1).max(32)).max(10);
const ClientExtensionResults = z.record(z.string(), z.unknown());

/**
 * What the browser posts after `navigator.credentials.create` (`RegistrationResponseJSON`), checked
 * for shape only (its bytes are checked by the ceremony). Unknown fields are dropped.
 */
export const RegistrationResponse = z.object({
  id: CredentialId,
  rawId: CredentialId,
  type: z.literal("public-key"),
  response: z.object({
    clientDataJSON: base64url(4096),
    attestationObject: base64url(32_768),
    transports: Transports.optional(),
  }),
  clientExtensionResults: ClientExtensionResults,
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
});
export type RegistrationResponse = z.infer<typeof RegistrationResponse>;

/** What the browser posts after `navigator.credentials.get` (`AuthenticationResponseJSON`). */
export const AuthenticationResponse = z.object({
  id: CredentialId,
  rawId: CredentialId,
  type: z.literal("public-key"),
  response: z.object({
    clientDataJSON: base64url(4096),
    authenticatorData: base64url(4096),
    signature: base64url(8192),
    /** The user handle (at most 64 bytes): discoverable credentials always return it. */
    userHandle: base64url(88).optional(),
  }),
  clientExtensionResults: ClientExtensionResults,
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
});
export type AuthenticationResponse = z.infer<typeof AuthenticationResponse>;

/** The parts of `clientDataJSON` the ceremony reads before the library checks the rest. */
const ClientData = z.object({ type: z.string(), challenge: z.string(), origin: z.string() });
export type ClientData = z.infer<typeof ClientData>;

/** `clientDataJSON` decoded (base64url → UTF-8 → JSON); null when it is not that. */
export function clientDataOf(clientDataJSON: string): ClientData | null {
  const text = base64urlText(clientDataJSON);
  if (text === null) return null;
  try {
    const parsed = ClientData.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The UTF-8 text of base64url `value`; null when it is not base64url of UTF-8. */
export function base64urlText(value: string): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(base64urlnopad.decode(value));
  } catch {
    return null;
  }
}

/** `response` as the library types it (optional fields left out rather than undefined). */
export function registrationJson(response: RegistrationResponse): RegistrationResponseJSON {
  const { transports, ...rest } = response.response;
  return {
    id: response.id,
    rawId: response.rawId,
    type: response.type,
    response: { ...rest, ...(transports ? { transports } : {}) },
    clientExtensionResults: response.clientExtensionResults,
  };
}

/** `response` as the library types it (optional fields left out rather than undefined). */
export function authenticationJson(response: AuthenticationResponse): AuthenticationResponseJSON {
  const { userHandle, ...rest } = response.response;
  return {
    id: response.id,
    rawId: response.rawId,
    type: response.type,
    response: { ...rest, ...(userHandle !== undefined ? { userHandle } : {}) },
    clientExtensionResults: response.clientExtensionResults,
  };
}
