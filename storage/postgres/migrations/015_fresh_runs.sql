-- Fresh runs (docs/predictions.md "Fresh runs"): the last fresh run queued per event (its round, who
-- queued it, when, on the server's clock) and each organisation's queued counts within the window
-- (one row per reservation that queued something; rows older than the window are deleted by the
-- organisation's next reservation).
CREATE TABLE IF NOT EXISTS fresh_run_events (
  event_id TEXT PRIMARY KEY,
  round INTEGER NOT NULL CHECK (round > 0),
  org_id TEXT NOT NULL,
  queued_at_ms BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS fresh_run_org_counts (
  org_id TEXT NOT NULL,
  queued_at_ms BIGINT NOT NULL,
  events INTEGER NOT NULL CHECK (events > 0)
);
CREATE INDEX IF NOT EXISTS fresh_run_org_counts_idx ON fresh_run_org_counts (org_id, queued_at_ms);

-- One reservation, in p_events order: 'already_queued' (a run of the event queued within the
-- window), else 'queued' (round = 1 + the greater of the event's last fresh round and its
-- assignments' latest round) while the organisation's count within the window stays within
-- p_per_org, else 'org_limit'. Locks: the organisation's advisory lock first, then each event's in
-- ascending lock-key order (every caller takes them in that order, so reservations cannot
-- deadlock); racing reservations of one event or one organisation run one after the other.
CREATE OR REPLACE FUNCTION reserve_fresh_runs(p_org TEXT, p_events TEXT[], p_per_org INTEGER,
  p_window_ms BIGINT)
RETURNS JSONB LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_now BIGINT;
  v_since BIGINT;
  v_used INTEGER;
  v_key INTEGER;
  v_event TEXT;
  v_last fresh_run_events%ROWTYPE;
  v_round INTEGER;
  v_queued INTEGER := 0;
  v_out JSONB := '{}'::JSONB;
BEGIN
  PERFORM pg_advisory_xact_lock(7015, hashtext(p_org));
  FOR v_key IN SELECT DISTINCT hashtext(e) FROM unnest(p_events) e ORDER BY 1 LOOP
    PERFORM pg_advisory_xact_lock(7016, v_key);
  END LOOP;
  v_now := storage_now_ms();
  v_since := v_now - p_window_ms;
  DELETE FROM fresh_run_org_counts WHERE org_id = p_org AND queued_at_ms <= v_since;
  SELECT COALESCE(sum(events), 0) INTO v_used FROM fresh_run_org_counts WHERE org_id = p_org;
  FOREACH v_event IN ARRAY p_events LOOP
    SELECT * INTO v_last FROM fresh_run_events WHERE event_id = v_event;
    IF FOUND AND v_last.queued_at_ms > v_since THEN
      v_out := v_out || jsonb_build_object(v_event,
        jsonb_build_object('status', 'already_queued', 'round', v_last.round));
    ELSIF v_used + v_queued >= p_per_org THEN
      v_out := v_out || jsonb_build_object(v_event, jsonb_build_object('status', 'org_limit'));
    ELSE
      SELECT 1 + GREATEST(COALESCE(v_last.round, 0), COALESCE(max(a.round), 0)) INTO v_round
        FROM assignments a WHERE a.event_id = v_event;
      INSERT INTO fresh_run_events (event_id, round, org_id, queued_at_ms)
        VALUES (v_event, v_round, p_org, v_now)
        ON CONFLICT (event_id) DO UPDATE SET round = EXCLUDED.round, org_id = EXCLUDED.org_id,
          queued_at_ms = EXCLUDED.queued_at_ms;
      v_queued := v_queued + 1;
      v_out := v_out || jsonb_build_object(v_event, jsonb_build_object('status', 'queued', 'round', v_round));
    END IF;
  END LOOP;
  IF v_queued > 0 THEN
    INSERT INTO fresh_run_org_counts (org_id, queued_at_ms, events) VALUES (p_org, v_now, v_queued);
  END IF;
  RETURN v_out;
END;
$$;
