/**
 * `pgArray` (storage/postgres/_pg_array.ts): array parameters travel as literals, so they never
 * depend on postgres.js having fetched the server's array types. Round trips through the server
 * (or PGlite) with the values that need quoting.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { pgArray } from "../../storage/postgres/_pg_array.ts";
import { openTestDatabase } from "../support/test_postgres.ts";

const AWKWARD = ['a"b', "back\\slash", "comma,brace{}", " spaced ", "NULL", "", "ünï ✓", '{"json": [1, 2]}'];

Deno.test("array literals round-trip quotes, backslashes, commas, braces, NULL, empty strings and bigints", async () => {
  const db = await openTestDatabase();
  // fetch_types off: the client never learns the array types, the case the literals are for.
  const sql = postgres(db.url, { max: 1, onnotice: () => {}, fetch_types: false });
  const elements = async (literal: string, type: string) =>
    (await sql.unsafe(
      `SELECT e::text AS e FROM unnest($1::${type}[]) WITH ORDINALITY AS t(e, n) ORDER BY n`,
      [literal],
    )).map((row) => row.e as string | null);
  try {
    assert.deepEqual(await elements(pgArray(AWKWARD), "text"), AWKWARD);
    assert.deepEqual(await elements(pgArray(["x", null, "y"]), "text"), ["x", null, "y"]);
    assert.deepEqual(
      await elements(pgArray([1n, -2n, 9_007_199_254_740_993n, 7]), "bigint"),
      ["1", "-2", "9007199254740993", "7"],
    );
    assert.deepEqual(await elements(pgArray([]), "int"), []);
  } finally {
    await sql.end();
    await db.close();
  }
});
