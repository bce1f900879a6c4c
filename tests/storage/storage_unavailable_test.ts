import assert from "node:assert/strict";
import postgres from "postgres";
import { isStorageUnavailable } from "../../storage/storage_unavailable.ts";
import { openTestDatabase, realPostgres } from "../support/test_postgres.ts";
import { refusedConnectionError } from "../support/storage_outage.ts";

Deno.test("a refused connection is storage unavailable, also as the cause of another error", async () => {
  const refused = await refusedConnectionError();
  assert.equal(isStorageUnavailable(refused), true, String(refused));
  assert.equal(isStorageUnavailable(new Error("could not count", { cause: refused })), true);
});

Deno.test("a statement the database refuses for what it says, or any other error, is not", async () => {
  const database = await openTestDatabase();
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    const missing = await sql`SELECT * FROM no_such_table`.catch((error) => error);
    assert.equal(missing.code, "42P01");
    assert.equal(isStorageUnavailable(missing), false);
    await sql`CREATE TEMP TABLE once (id INT PRIMARY KEY)`;
    await sql`INSERT INTO once VALUES (1)`;
    const duplicate = await sql`INSERT INTO once VALUES (1)`.catch((error) => error);
    assert.equal(duplicate.code, "23505");
    assert.equal(isStorageUnavailable(duplicate), false);
  } finally {
    await sql.end();
    await database.close();
  }
  for (const other of [new Error("boom"), new TypeError("x is undefined"), "text", null, { code: "57P01" }]) {
    assert.equal(isStorageUnavailable(other), false, String(other));
  }
});

Deno.test({
  name: realPostgres
    ? "a connection the server terminates mid-statement is storage unavailable"
    : "a connection the server terminates (ignored: needs DATABASE_URL)",
  ignore: !realPostgres,
  fn: async () => {
    const database = await openTestDatabase();
    const victim = postgres(database.url, { max: 1, onnotice: () => {} });
    const admin = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      const [row] = await victim<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
      const pid = row!.pid;
      const sleeping = victim`SELECT pg_sleep(30)`.catch((error: Error & { code?: string }) => error);
      // Wait until the victim is inside its statement, then end its backend as an operator would.
      for (let i = 0; i < 200; i++) {
        const [activity] = await admin`SELECT state FROM pg_stat_activity WHERE pid = ${pid}`;
        if (activity?.state === "active") break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await admin`SELECT pg_terminate_backend(${pid})`;
      const ended = await sleeping;
      assert.ok(ended instanceof Error, "the statement failed");
      assert.equal(isStorageUnavailable(ended), true, `${ended.code}: ${ended}`);
    } finally {
      await victim.end({ timeout: 0 });
      await admin.end();
      await database.close();
    }
  },
});

Deno.test({
  name: realPostgres
    ? "a database that does not accept connections (ALLOW_CONNECTIONS false) is storage unavailable"
    : "a database that does not accept connections (ignored: needs DATABASE_URL)",
  ignore: !realPostgres,
  fn: async () => {
    const server = postgres(Deno.env.get("DATABASE_URL")!, { max: 1, onnotice: () => {} });
    const name = `fgw_closed_${crypto.randomUUID().replaceAll("-", "")}`;
    await server.unsafe(`CREATE DATABASE ${name}`);
    const url = new URL(Deno.env.get("DATABASE_URL")!);
    url.pathname = `/${name}`;
    await server.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    // A new connection (as a pool opens after its old ones were ended): refused while it is set up.
    const client = postgres(url.href, { max: 1, connect_timeout: 5, onnotice: () => {} });
    try {
      const refused = await client`SELECT 1`.then(
        () => assert.fail("a query ran"),
        (error: Error & { code?: string; severity?: string }) => error,
      );
      assert.deepEqual([refused.code, refused.severity], ["55000", "FATAL"], String(refused));
      assert.equal(isStorageUnavailable(refused), true);
    } finally {
      await client.end({ timeout: 0 });
      await server.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await server.end();
    }
  },
});
