/**
 * Chromium's virtual authenticator (DevTools protocol, `WebAuthn` domain): a platform
 * authenticator with resident keys and user verification that always verifies the user, attached
 * to one page, so `navigator.credentials` works headless with no prompt.
 */
import type { CDPSession, Page } from "playwright-core";

/** A credential as the protocol answers it (its private key included: tests copy it to another page). */
export interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
}

export interface VirtualAuthenticator {
  credentials(): Promise<VirtualCredential[]>;
  add(credential: VirtualCredential): Promise<void>;
}

/** Adds a virtual authenticator to `page`: CTAP2, internal transport, resident keys, user verified. */
export async function addVirtualAuthenticator(page: Page): Promise<VirtualAuthenticator> {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    credentials: async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials,
    add: async (credential) => {
      await cdp.send("WebAuthn.addCredential", { authenticatorId, credential });
    },
  };
}
