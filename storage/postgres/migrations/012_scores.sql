-- What the scoring job computes (storage/score_store.ts): each scored event, the scored values of
-- its predictions, and the per-miner score table. Records are JSONB; the columns beside them are
-- what queries select and order on. Ids use the "C" collation: code-point order, as Deno KV's.
CREATE TABLE IF NOT EXISTS scored_events (
  event_id TEXT COLLATE "C" PRIMARY KEY,
  resolved_at_ms BIGINT NOT NULL,
  record JSONB NOT NULL
);
CREATE INDEX IF NOT EXISTS scored_events_newest ON scored_events (resolved_at_ms DESC, event_id);

CREATE TABLE IF NOT EXISTS scored_predictions (
  agent_prediction_id TEXT COLLATE "C" PRIMARY KEY,
  event_id TEXT COLLATE "C" NOT NULL,
  miner_hotkey TEXT COLLATE "C" NOT NULL,
  miner_uid INTEGER NOT NULL,
  resolved_at_ms BIGINT NOT NULL,
  counted BOOLEAN NOT NULL,
  record JSONB NOT NULL
);
CREATE INDEX IF NOT EXISTS scored_predictions_by_event ON scored_predictions (event_id, agent_prediction_id);
-- A miner's counted rows: its scored events, and its rows in the score table's window.
CREATE INDEX IF NOT EXISTS scored_predictions_by_hotkey
  ON scored_predictions (miner_hotkey, resolved_at_ms DESC, event_id) WHERE counted;

-- The score table: one head row (the run's computedAt and window) and its rows.
CREATE TABLE IF NOT EXISTS score_tables (
  id BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (id),
  computed_at_ms BIGINT NOT NULL,
  window_days DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS score_table_rows (
  uid INTEGER NOT NULL,
  hotkey TEXT COLLATE "C" NOT NULL,
  record JSONB NOT NULL,
  PRIMARY KEY (uid, hotkey)
);
