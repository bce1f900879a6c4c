/// <reference lib="dom" />
/**
 * The browser side of the usage page, served as `/dashboard/assets/usage.js` (usage_script.ts): the
 * function is sent as its source text, so it uses only the browser's globals.
 *
 * @module
 */

/**
 * Fills the usage form's empty time zone with the browser's (`Intl`), and, on a page opened without
 * a zone (`data-browser-zone="submit"`), asks for the figures in it at once. Without the script
 * the zone stays UTC.
 */
export function fillBrowserZone(): void {
  const field = document.getElementById("usage-tz");
  if (!(field instanceof HTMLInputElement) || field.value !== "") return;
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (typeof zone !== "string" || zone === "") return;
  field.value = zone;
  if (field.dataset.browserZone === "submit" && field.form) field.form.submit();
}
