/**
 * True when `value` can be sent as an HTTP header's value as it is: tab, printable ASCII and the
 * bytes U+0080..U+00FF, nothing else (no line break, NUL or other control character, no character
 * beyond U+00FF). Trim first: a header's leading and trailing whitespace is not part of its value.
 * A secret that fails this must be refused by name, never shown: `fetch` quotes a bad value in its
 * TypeError.
 */
export function isHeaderValue(value: string): boolean {
  return /^[\t\x20-\x7e\x80-\xff]*$/.test(value);
}

/** Why a secret failing `isHeaderValue` is refused, without its value (`<what> cannot be sent …`). */
export const NOT_A_HEADER_VALUE = "cannot be sent in an HTTP header (it holds a line break, NUL or other " +
  "control character, or a character beyond U+00FF; its value is not shown)";
