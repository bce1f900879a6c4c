import type { Context } from "hono";

/** A strong entity tag for `bytes`: the first 12 bytes of their SHA-256, in hex, quoted. */
export async function entityTag(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `"${Array.from(digest.slice(0, 12), (b) => b.toString(16).padStart(2, "0")).join("")}"`;
}

/**
 * True when the request's `If-None-Match` lists `tag` (or `*`), weak (`W/`) or not: RFC 9110
 * §13.1.2 compares `If-None-Match` weakly. The answer is then 304 with no body.
 */
export function notModified(c: Context, tag: string): boolean {
  const wanted = c.req.header("if-none-match");
  return wanted !== undefined && wanted.split(",").some((listed) => {
    const trimmed = listed.trim();
    return trimmed === "*" || (trimmed.startsWith("W/") ? trimmed.slice(2) : trimmed) === tag;
  });
}
