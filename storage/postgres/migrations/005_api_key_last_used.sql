-- A key's last use lives beside its row, written by the statement that counts uses, so using a
-- key never writes the row its ApiKeyActor owns. api_keys.last_used_at is no longer read or
-- written; it stays so that an instance of the previous version keeps working during a rollout.
CREATE TABLE IF NOT EXISTS api_key_last_used (
  key_id TEXT PRIMARY KEY,
  used_at TIMESTAMPTZ NOT NULL
);
INSERT INTO api_key_last_used (key_id, used_at)
  SELECT key_id, last_used_at FROM api_keys WHERE last_used_at IS NOT NULL
  ON CONFLICT (key_id) DO NOTHING;
