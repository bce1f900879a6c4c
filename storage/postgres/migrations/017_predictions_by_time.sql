-- The events predicted since a time (AssignmentStore.eventsPredictedSince): what each instance's
-- cache of customer predictions polls to learn which events changed (docs/predictions.md "Freshness").
CREATE INDEX IF NOT EXISTS predictions_predicted_at_idx ON predictions (predicted_at_ms);
