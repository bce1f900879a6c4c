CREATE TABLE IF NOT EXISTS api_keys (
  key_id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  name TEXT NOT NULL,
  scopes TEXT[] NOT NULL,
  rate_limit_rpm INTEGER NOT NULL,
  pinned_miner_hotkey TEXT,
  expires_at TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL,
  revoked_at TIMESTAMPTZ,
  secret_hash TEXT NOT NULL,
  last_used_at TIMESTAMPTZ,
  version INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS api_keys_org_idx ON api_keys (org_id, created_at, key_id);

-- Counters are disposable (losing them on a crash only resets the current minute): UNLOGGED.
CREATE UNLOGGED TABLE IF NOT EXISTS rate_limit_windows (
  bucket TEXT NOT NULL,
  window_start_ms BIGINT NOT NULL,
  window_end_ms BIGINT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (bucket, window_start_ms)
);
CREATE INDEX IF NOT EXISTS rate_limit_windows_end_idx ON rate_limit_windows (window_end_ms);
