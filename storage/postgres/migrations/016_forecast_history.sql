-- The forecast history: one point per (event, UTC hour) recorded by the prediction snapshot job,
-- read per event by time, purged by time after the retention (docs/predictions.md "History").
CREATE TABLE IF NOT EXISTS forecast_history (
  event_id TEXT COLLATE "C" NOT NULL,
  hour_ms BIGINT NOT NULL,
  at_ms BIGINT NOT NULL,
  forecast JSONB,
  contributors INTEGER NOT NULL,
  market JSONB NOT NULL,
  PRIMARY KEY (event_id, hour_ms)
);
CREATE INDEX IF NOT EXISTS forecast_history_at_idx ON forecast_history (at_ms);
