import type { Sql, TransactionSql } from "postgres";
import type { PasskeyCredential } from "../member_store.ts";
import { pgArray } from "./_pg_array.ts";
import { type CredentialRow, toCredential } from "./_pg_identity_rows.ts";

/** The passkeys half of `PgMemberStore`. */
export class PgCredentials {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /** Inserts the credential in the caller's transaction; false when its id is stored already. */
  async insert(tx: TransactionSql, credential: PasskeyCredential): Promise<boolean> {
    const rows = await tx`
      INSERT INTO passkey_credentials
        (credential_id, member_id, public_key, sign_count, transports, created_at_ms, last_used_at_ms)
      VALUES (${credential.credentialId}, ${credential.memberId}, ${credential.publicKey},
        ${credential.signCount}, ${pgArray(credential.transports)}::text[], ${credential.createdAtMs},
        ${credential.lastUsedAtMs})
      ON CONFLICT (credential_id) DO NOTHING RETURNING credential_id`;
    return rows.length === 1;
  }

  async get(credentialId: string): Promise<PasskeyCredential | null> {
    const [row] = await this.#sql<CredentialRow[]>`
      SELECT * FROM passkey_credentials WHERE credential_id = ${credentialId}`;
    return row ? toCredential(row) : null;
  }

  async list(memberId: string): Promise<PasskeyCredential[]> {
    const rows = await this.#sql<CredentialRow[]>`
      SELECT * FROM passkey_credentials WHERE member_id = ${memberId}
      ORDER BY created_at_ms, credential_id COLLATE "C"`;
    return rows.map(toCredential);
  }

  async recordUse(
    credentialId: string,
    use: { expectedSignCount: number; signCount: number; atMs: number },
  ): Promise<boolean> {
    const rows = await this.#sql`
      UPDATE passkey_credentials SET sign_count = ${use.signCount}, last_used_at_ms = ${use.atMs}
      WHERE credential_id = ${credentialId} AND sign_count = ${use.expectedSignCount}
      RETURNING credential_id`;
    return rows.length === 1;
  }
}
