/** Text a spreadsheet would run as a formula (CSV injection) unless it is escaped. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV field per RFC 4180: quoted when it holds a comma, quote, or line break. Text that a
 * spreadsheet would read as a formula gets a leading apostrophe (numbers are left alone).
 */
function csvField(value: unknown): string {
  let text = value === null || value === undefined
    ? ""
    : typeof value === "object"
    ? JSON.stringify(value)
    : String(value);
  if (typeof value === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A CSV document: a header row of `columns`, then one row per record; objects are JSON-stringified. */
export function toCsv<T extends object>(columns: readonly (keyof T & string)[], rows: readonly T[]): string {
  const lines = [columns.join(",")];
  for (const row of rows) lines.push(columns.map((column) => csvField(row[column])).join(","));
  return lines.join("\r\n") + "\r\n";
}
