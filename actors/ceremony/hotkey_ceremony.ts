import { utf8ToBytes } from "@noble/hashes/utils.js";
import { hex } from "@scure/base";
import { z } from "zod";
import { type Clock, isSs58Address, ss58PublicKey } from "../kernel/mod.ts";
import { checkSignedForm, type SignatureCheck } from "../validators/mod.ts";
import { ceremonyRefusal } from "./ceremony_refusal.ts";
import { isChallengeText, issueChallenge, redeemChallenge } from "./challenges.ts";
import type { ChallengePurpose, ChallengeStore } from "./challenge_store.ts";
import { linkMessage, signInMessage } from "./hotkey_messages.ts";
import type { PublicOrigin } from "./public_origin.ts";

/** What the browser posts: the hotkey, the challenge it signed, and its signature (64 bytes hex, `0x` optional). */
export const HotkeyProof = z.object({
  hotkey: z.string().max(64).refine(isSs58Address, "Expected an SS58 address with network prefix 42"),
  challenge: z.string().max(64).refine(isChallengeText, "Expected the challenge this page gave"),
  signature: z.string().trim().regex(
    /^(?:0x)?[0-9a-fA-F]{128}$/,
    "Expected 64 bytes as hex, 0x prefix optional",
  ),
});
export type HotkeyProof = z.infer<typeof HotkeyProof>;

/** A proof that verified: the hotkey, and whether it signed the `<Bytes>`-wrapped message. */
export interface VerifiedHotkey {
  hotkey: string;
  wrapped: boolean;
}

export interface HotkeyCeremonyOptions {
  /** `FGW_PUBLIC_URL`'s origin (`publicOriginOf`): the message's second line. */
  origin: PublicOrigin;
  challenges: ChallengeStore;
  clock: Clock;
  /** sr25519 verification (the service's `VerifyPool.verify`, or one on this thread). */
  verify: SignatureCheck;
}

/**
 * The hotkey ceremonies of the dashboard (docs/dashboard.md, "Sign-in ceremonies"): signing in
 * with a hotkey, and proving a hotkey is the organisation's before it is linked. Each issues a
 * challenge bound to the asking browser session (and, for a link, to the organisation), then
 * verifies the hotkey's sr25519 signature over the message rebuilt on the server — raw or
 * `<Bytes>`-wrapped, as signatures of request headers are checked (docs/signatures.md). Which
 * member a hotkey signs in as, and the link itself, are the caller's.
 */
export class HotkeyCeremony {
  readonly #options: HotkeyCeremonyOptions;

  constructor(options: HotkeyCeremonyOptions) {
    this.#options = options;
  }

  /** The public origin, the messages' second line (the page shows the whole message to sign). */
  get origin(): string {
    return this.#options.origin.origin;
  }

  /** A challenge for signing in from the browser session `browser`. */
  signInChallenge(browser: string): Promise<string> {
    return this.#issue("hotkey_sign_in", browser, "");
  }

  /** A challenge for linking a hotkey to `orgId`, from the browser session `browser`. */
  linkChallenge(browser: string, orgId: string): Promise<string> {
    return this.#issue("hotkey_link", browser, orgId);
  }

  /** Verifies a sign-in proof (challenge used up whatever follows); throws the 401 refusal otherwise. */
  async verifySignIn(browser: string, proof: HotkeyProof): Promise<VerifiedHotkey> {
    await this.#redeem("hotkey_sign_in", browser, proof, "");
    const message = signInMessage({ origin: this.origin, challenge: proof.challenge, hotkey: proof.hotkey });
    return await this.#verified(proof, message);
  }

  /** Verifies a link proof for `orgId` (challenge used up whatever follows); throws the 401 refusal otherwise. */
  async verifyLink(
    browser: string,
    proof: HotkeyProof,
    { orgId }: { orgId: string },
  ): Promise<VerifiedHotkey> {
    await this.#redeem("hotkey_link", browser, proof, orgId);
    const message = linkMessage({
      origin: this.origin,
      orgId,
      challenge: proof.challenge,
      hotkey: proof.hotkey,
    });
    return await this.#verified(proof, message);
  }

  #issue(purpose: ChallengePurpose, browser: string, subject: string): Promise<string> {
    const { challenges, clock } = this.#options;
    return issueChallenge(challenges, { purpose, browser, subject, nowMs: clock() });
  }

  #redeem(purpose: ChallengePurpose, browser: string, proof: HotkeyProof, subject: string): Promise<void> {
    const { challenges, clock } = this.#options;
    return redeemChallenge(challenges, proof.challenge, { purpose, browser, subject, nowMs: clock() });
  }

  async #verified(proof: HotkeyProof, message: string): Promise<VerifiedHotkey> {
    const signature = hex.decode(proof.signature.replace(/^0x/, "").toLowerCase());
    const form = await checkSignedForm(signature, utf8ToBytes(message), {
      publicKey: ss58PublicKey(proof.hotkey),
      verify: this.#options.verify,
    });
    if (form === null) throw ceremonyRefusal("signature");
    return { hotkey: proof.hotkey, wrapped: form.wrapped };
  }
}
