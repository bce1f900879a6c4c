import type { Context } from "hono";
import { flashOnce } from "../flash_once.ts";

/** The cookie a new key's secret travels in, sealed, from the POST to the page (flash_once.ts). */
export const FLASH_COOKIE = "fgw_key_once";

/** What the one-time message says. */
export interface KeyFlash {
  keyId: string;
  apiKey: string;
  /** `issued` or `rotated`. */
  event: "issued" | "rotated";
}

const keyFlash = flashOnce<KeyFlash>(FLASH_COOKIE);

/** Sets the sealed secret on the answer; nothing without a session cookie. */
export function sealKeyFlash(c: Context, flash: KeyFlash): Promise<void> {
  return keyFlash.seal(c, flash);
}

/** The secret the request carries, opened (null when none, or not this session's), and the cookie dropped. */
export function takeKeyFlash(c: Context): Promise<KeyFlash | null> {
  return keyFlash.take(c);
}
