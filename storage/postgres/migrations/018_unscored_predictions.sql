-- Predictions not yet marked scored, by event (AssignmentStore.eventsWithUnscored): the scoring job
-- asks it of events it has already scored, to skip those with nothing new (docs/scoring.md). Small:
-- a prediction leaves it when the job marks it.
CREATE INDEX IF NOT EXISTS predictions_unscored_idx ON predictions (event_id) WHERE scored_at_ms IS NULL;
