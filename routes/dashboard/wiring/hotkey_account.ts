import type { Context } from "hono";
import type { AccountOf } from "../sign_in_limits.ts";

/** The longest hotkey field read (an ss58 address is 47–48 characters). */
const MAX_HOTKEY = 64;

/**
 * The account a hotkey sign-in answer names, read before it is verified: the hotkey typed in the
 * form; null when the body is not a form or names no hotkey (the route answers those itself; the
 * per-address limit counts them). The form is read through the request's parsed-body cache: the
 * CSRF check has read the body already (the raw body cannot be read, nor copied, twice), and the
 * route reads the same cache.
 */
export function hotkeyAccountOf(): AccountOf {
  return async (c: Context) => {
    const form = await c.req.parseBody().catch(() => null);
    const hotkey = form?.["hotkey"];
    if (typeof hotkey !== "string") return null;
    const typed = hotkey.trim();
    return typed.length === 0 || typed.length > MAX_HOTKEY ? null : `hotkey:${typed}`;
  };
}
