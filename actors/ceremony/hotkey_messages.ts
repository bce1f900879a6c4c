/** The first line of each message a hotkey signs for the dashboard: a signature for one never verifies as the other. */
export const HOTKEY_MESSAGE_DOMAINS = {
  signIn: "forecasting-gateway/signin/v1",
  link: "forecasting-gateway/link/v1",
} as const;

/** What a hotkey signs to sign in. */
export interface SignInMessageParts {
  /** The public origin (`FGW_PUBLIC_URL`'s), never the request's `Host`. */
  origin: string;
  challenge: string;
  /** The hotkey's SS58 address. */
  hotkey: string;
}

/** What a hotkey signs to be linked to an organisation. */
export interface LinkMessageParts extends SignInMessageParts {
  orgId: string;
}

/** `forecasting-gateway/signin/v1\n<origin>\n<challenge>\n<ss58>` (UTF-8, no trailing newline). */
export function signInMessage(parts: SignInMessageParts): string {
  return [HOTKEY_MESSAGE_DOMAINS.signIn, parts.origin, parts.challenge, parts.hotkey].join("\n");
}

/** `forecasting-gateway/link/v1\n<origin>\n<orgId>\n<challenge>\n<ss58>` (UTF-8, no trailing newline). */
export function linkMessage(parts: LinkMessageParts): string {
  return [HOTKEY_MESSAGE_DOMAINS.link, parts.origin, parts.orgId, parts.challenge, parts.hotkey].join("\n");
}
