CREATE TABLE IF NOT EXISTS events (
  id TEXT COLLATE "C" PRIMARY KEY,
  body JSONB NOT NULL,
  version INTEGER NOT NULL,
  updated_at_ms BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_changed_idx ON events (updated_at_ms, id);

CREATE TABLE IF NOT EXISTS job_leases (
  job TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at_ms BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
