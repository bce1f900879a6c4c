-- Miners' agent versions, content-addressed per miner by the SHA-256 of the code, and each miner's
-- current version and last upload (the row an upload locks: the cooldown arbiter).
CREATE TABLE IF NOT EXISTS agent_versions (
  version_id TEXT PRIMARY KEY,
  miner_hotkey TEXT NOT NULL,
  sha256 TEXT NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  size_bytes INTEGER NOT NULL CHECK (size_bytes >= 0),
  name TEXT,
  created_at_ms BIGINT NOT NULL,
  code TEXT NOT NULL,
  UNIQUE (miner_hotkey, sha256)
);
CREATE INDEX IF NOT EXISTS agent_versions_miner_idx
  ON agent_versions (miner_hotkey, created_at_ms DESC, version_id DESC);

CREATE TABLE IF NOT EXISTS agent_miners (
  miner_hotkey TEXT PRIMARY KEY,
  current_version_id TEXT NOT NULL REFERENCES agent_versions (version_id),
  last_upload_at_ms BIGINT NOT NULL
);
