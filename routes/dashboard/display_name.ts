import { z } from "zod";

/** The longest display name, in characters. */
export const DISPLAY_NAME_MAX = 64;

/**
 * A member's display name as typed: trimmed, at most 64 characters, no control, format or
 * private-use characters and no line breaks (a name is one line of text). Empty means "not given"
 * (the member is then named after its role). Pages render it as text, so markup in it stays inert.
 */
export const DisplayNameField = z.string().max(1_000, "at most 64 characters").transform((text) =>
  text.trim()
)
  .pipe(
    z.string()
      .refine((text) => [...text].length <= DISPLAY_NAME_MAX, `at most ${DISPLAY_NAME_MAX} characters`)
      .regex(
        /^[^\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}]*$/u,
        "letters, digits, spaces and punctuation only (no control characters or line breaks)",
      ),
  );

/** The name of a member who gave none: its role. */
export function defaultDisplayName(role: "owner" | "viewer"): string {
  return role === "owner" ? "Owner" : "Viewer";
}
