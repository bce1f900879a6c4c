import postgres from "postgres";

/**
 * The error a real query gives when nothing listens where the database should be (port 1 of
 * this host): what a storage outage looks like to the service.
 */
export async function refusedConnectionError(): Promise<Error> {
  const sql = postgres("postgres://postgres@127.0.0.1:1/none", {
    max: 1,
    connect_timeout: 5,
    onnotice: () => {},
  });
  try {
    await sql`SELECT 1`;
  } catch (error) {
    return error as Error;
  } finally {
    await sql.end({ timeout: 0 });
  }
  throw new Error("a query reached a database on port 1");
}
