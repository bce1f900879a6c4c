/**
 * A PostgreSQL array literal of `values`, for a `${…}::text[]` (or `int[]`, `bigint[]`,
 * `timestamptz[]`) parameter. Private to storage/postgres.
 *
 * postgres.js writes a JS array parameter with the serializer of the type the server describes
 * (`text[]`, …), and it has that serializer only once the client has fetched the server's array
 * types; a statement bound before then went out as `a,b` (`Array.prototype.toString`) and was
 * refused as `malformed array literal` (a grouped billing commit on a new pool, a few times in
 * twenty runs under load). A literal is a string: bound as is either way.
 */
export function pgArray(values: readonly (string | number | bigint | null)[]): string {
  return `{${values.map(element).join(",")}}`;
}

function element(value: string | number | bigint | null): string {
  if (value === null) return "NULL";
  return `"${String(value).replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}
