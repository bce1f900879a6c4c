/** What the billing store's statements run on. */
import type { Sql, TransactionSql } from "postgres";

/** postgres.js with BIGINT read and written as `bigint` (as `openPgStorage` configures it). */
export type BigintSql = Sql<{ bigint: bigint }>;
/** A connection or a transaction: what one statement runs on. */
export type Runner = BigintSql | TransactionSql<{ bigint: bigint }>;
