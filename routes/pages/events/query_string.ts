import type { Context } from "hono";

/** The query string of `url` with its `?`, or "" when it has none. */
export function searchOf(url: string): string {
  const at = url.indexOf("?");
  return at === -1 ? "" : url.slice(at);
}

/**
 * A form sends every field, the empty ones too (`?q=&status=`), and the JSON routes refuse an
 * empty value: a page asked with empty parameters answers 303 to the same page without them, so
 * its URL is the JSON route's query. Null when there is none to drop. Pieces are kept as sent.
 */
export function dropEmptyParameters(c: Context): Response | null {
  const search = searchOf(c.req.url);
  if (search === "") return null;
  const pieces = search.slice(1).split("&");
  const kept = pieces.filter((piece) => !isEmptyValued(piece));
  if (kept.length === pieces.length) return null;
  const path = new URL(c.req.url).pathname;
  return c.redirect(kept.length === 0 ? path : `${path}?${kept.join("&")}`, 303);
}

/**
 * `search` with parameter `name` set to `value` (appended after the others) or removed when
 * `value` is null; the other parameters keep their order and their encoding.
 */
export function withParameter(search: string, name: string, value: string | null): string {
  const pieces = search.replace(/^\?/, "").split("&").filter((piece) => piece !== "");
  const others = pieces.filter((piece) => decodeName(piece) !== name);
  if (value !== null) others.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  return others.length === 0 ? "" : `?${others.join("&")}`;
}

/** The values of `search`, one per name (the first), decoded as a form encodes them. */
export function valuesOf(search: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(search)) values[name] ??= value;
  return values;
}

/**
 * `name=`, `name` or an empty piece; a piece without a name (`=x`) is not: the route refuses it,
 * naming the field "".
 */
function isEmptyValued(piece: string): boolean {
  const at = piece.indexOf("=");
  return at === -1 || at === piece.length - 1 && at > 0;
}

function decodeName(piece: string): string {
  const name = piece.split("=", 1)[0]!;
  try {
    return decodeURIComponent(name.replaceAll("+", " "));
  } catch {
    return name;
  }
}
