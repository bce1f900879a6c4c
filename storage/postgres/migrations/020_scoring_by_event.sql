-- The scoring job's writes, per event instead of per prediction (docs/scoring.md "Storage").
-- Marking 1,000,000 predictions scored used to update 1,000,000 assignments rows and 1,000,000
-- predictions rows (neither a HOT update), and every scored row was its own ~500-byte JSONB row
-- with three index entries, which the score table read back whole.

-- Which predictions are scored: one row per event and marking call, listing the ids it marked
-- (AssignmentStore.markScoredMany), with the resolution they were scored against. An assignment
-- reads `scored` when its prediction is listed in a mark of its event (the stored status stays
-- `submitted`); a prediction's `scored` is its mark. Ids are listed in one mark at most.
CREATE TABLE IF NOT EXISTS prediction_marks (
  event_id TEXT COLLATE "C" NOT NULL,
  mark_no INTEGER NOT NULL,
  scored_at_ms BIGINT NOT NULL,
  resolved_at_ms BIGINT NOT NULL,
  resolution JSONB NOT NULL,
  agent_prediction_ids TEXT[] COLLATE "C" NOT NULL,
  PRIMARY KEY (event_id, mark_no)
);
-- The scored-predictions feed: marks newest resolution first.
CREATE INDEX IF NOT EXISTS prediction_marks_by_resolution ON prediction_marks (resolved_at_ms DESC, event_id);

-- The marks made so far move over, one mark per event and resolution.
INSERT INTO prediction_marks (event_id, mark_no, scored_at_ms, resolved_at_ms, resolution, agent_prediction_ids)
SELECT event_id, row_number() OVER (PARTITION BY event_id ORDER BY min(scored_at_ms), resolved_at_ms),
  min(scored_at_ms), resolved_at_ms, resolution, array_agg(agent_prediction_id ORDER BY agent_prediction_id)
FROM predictions WHERE scored_at_ms IS NOT NULL
GROUP BY event_id, resolved_at_ms, resolution;
UPDATE assignments SET status = 'submitted' WHERE status = 'scored';
DROP INDEX IF EXISTS predictions_scored_idx;
DROP INDEX IF EXISTS predictions_unscored_idx;
ALTER TABLE predictions DROP COLUMN IF EXISTS scored_at_ms, DROP COLUMN IF EXISTS resolved_at_ms,
  DROP COLUMN IF EXISTS resolution;

-- Scored rows per event: `scored_events.rows` holds an event's prediction rows (one JSON value, an
-- array per field) and `miners` the keys of its counted rows' miners ("h:<hotkey>" and
-- "u:<uid>:<hotkey>"; GIN, for a miner's scored events). A scoring batch writes one row per event,
-- not one per prediction (storage/postgres/_pg_scored_rows.ts).
-- Rows of the old table are not converted (their per-miner values are the scorer's): every
-- scored event is scored again by the next run, which re-reads the event feed from its start
-- (its progress is reset; an event whose stored record differs is rescored, keeping its
-- settlement; its predictions stay marked). Until then an event's `rows` is null (no rows).
DROP TABLE IF EXISTS scored_predictions;
ALTER TABLE scored_events ADD COLUMN IF NOT EXISTS rows JSON,
  ADD COLUMN IF NOT EXISTS miners TEXT[] NOT NULL DEFAULT '{}';
CREATE INDEX IF NOT EXISTS scored_events_miners ON scored_events USING gin (miners);
UPDATE scored_events SET record = jsonb_set(record, '{marketPWinAtAdmission}', '-1');
DELETE FROM settings WHERE name = 'scoring_progress';
