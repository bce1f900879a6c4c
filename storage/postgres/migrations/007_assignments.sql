-- Assignments (the validators' work queue), the predictions submitted for them and their traces.
-- See docs/assignments.md. Lock order everywhere: assignment_miners rows, then assignments rows,
-- then predictions rows. A claim waits for a row lock only for its one assignments row.
-- An assignment is claimable when available, or in progress with a lease that has expired.

-- One row per miner that has had assignments: its newest agent version, whether it is eligible,
-- and how many leases it has had (the round-robin serves the fewest first; a miner that gains work
-- is raised to the fewest of the miners that have work, so it joins the rotation, not a backlog).
CREATE TABLE IF NOT EXISTS assignment_miners (
  miner_hotkey TEXT COLLATE "C" PRIMARY KEY,
  agent_version_id TEXT COLLATE "C" NOT NULL,
  agent_uploaded_at_ms BIGINT NOT NULL,
  eligible BOOLEAN NOT NULL,
  leased_count BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS assignment_miners_turn_idx
  ON assignment_miners (leased_count, miner_hotkey) WHERE eligible;

CREATE TABLE IF NOT EXISTS assignments (
  id TEXT COLLATE "C" PRIMARY KEY,
  agent_version_id TEXT COLLATE "C" NOT NULL,
  event_id TEXT COLLATE "C" NOT NULL,
  round INTEGER NOT NULL,
  miner_hotkey TEXT COLLATE "C" NOT NULL,
  miner_uid INTEGER NOT NULL,
  event_ends_at_ms BIGINT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('available', 'in_progress', 'submitted', 'scored', 'retired')),
  lease_holder TEXT,
  lease_token TEXT,
  leased_at_ms BIGINT,
  lease_expires_at_ms BIGINT,
  lease_prices JSONB,
  lease_count INTEGER NOT NULL DEFAULT 0,
  created_at_ms BIGINT NOT NULL
);
-- A miner's available work, soonest-ending first.
CREATE INDEX IF NOT EXISTS assignments_available_idx
  ON assignments (miner_hotkey, event_ends_at_ms, id) WHERE status = 'available';
-- A miner's leases by expiry (expired ones are claimable again).
CREATE INDEX IF NOT EXISTS assignments_leased_idx
  ON assignments (miner_hotkey, lease_expires_at_ms) WHERE status = 'in_progress';
-- Fresh runs still in the queue.
CREATE INDEX IF NOT EXISTS assignments_priority_idx
  ON assignments (miner_hotkey, event_ends_at_ms, id)
  WHERE round > 0 AND status IN ('available', 'in_progress');
-- All available work by event end, and all leases by expiry: is anything claimable at all?
CREATE INDEX IF NOT EXISTS assignments_open_idx
  ON assignments (event_ends_at_ms) WHERE status = 'available';
CREATE INDEX IF NOT EXISTS assignments_expiry_idx
  ON assignments (lease_expires_at_ms) WHERE status = 'in_progress';
CREATE INDEX IF NOT EXISTS assignments_held_idx
  ON assignments (lease_holder, lease_expires_at_ms) WHERE status = 'in_progress';
CREATE INDEX IF NOT EXISTS assignments_event_idx ON assignments (event_id, round);

CREATE TABLE IF NOT EXISTS predictions (
  agent_prediction_id TEXT COLLATE "C" PRIMARY KEY REFERENCES assignments (id),
  event_id TEXT COLLATE "C" NOT NULL,
  agent_version_id TEXT COLLATE "C" NOT NULL,
  round INTEGER NOT NULL,
  miner_hotkey TEXT COLLATE "C" NOT NULL,
  miner_uid INTEGER NOT NULL,
  validator_hotkey TEXT NOT NULL,
  predicted_at_ms BIGINT NOT NULL,
  outcome_prices_at_prediction JSONB NOT NULL,
  reported JSONB NOT NULL,
  validation JSONB NOT NULL,
  scored_at_ms BIGINT,
  resolved_at_ms BIGINT,
  resolution JSONB
);
CREATE INDEX IF NOT EXISTS predictions_event_idx ON predictions (event_id, agent_prediction_id);
CREATE INDEX IF NOT EXISTS predictions_scored_idx
  ON predictions (resolved_at_ms DESC, agent_prediction_id) WHERE scored_at_ms IS NOT NULL;

CREATE TABLE IF NOT EXISTS prediction_traces (
  agent_prediction_id TEXT COLLATE "C" PRIMARY KEY REFERENCES predictions (agent_prediction_id),
  trace JSONB NOT NULL
);

-- The claimable assignment of miner p_miner (agent version p_version) whose event ends soonest,
-- whose event is stored, live (events.retired, migration 011; function bodies are resolved when
-- first run), unresolved and not ended: an available one, or one whose lease expired.
-- p_priority: fresh runs (round > 0) only. NULL when there is none. Takes no locks.
CREATE OR REPLACE FUNCTION next_assignment(p_miner TEXT, p_version TEXT, p_now BIGINT, p_priority BOOLEAN)
RETURNS TEXT LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF p_priority THEN
    RETURN (SELECT a.id FROM assignments a JOIN events e ON e.id = a.event_id
      WHERE a.miner_hotkey = p_miner AND a.round > 0 AND a.status IN ('available', 'in_progress')
        AND (a.status = 'available' OR a.lease_expires_at_ms <= p_now)
        AND a.agent_version_id = p_version AND a.event_ends_at_ms > p_now
        AND e.body #>> '{resolution,resolutionStatus}' = 'unresolved' AND NOT e.retired
      ORDER BY a.event_ends_at_ms, a.id LIMIT 1);
  END IF;
  RETURN (SELECT c.id FROM (
    (SELECT a.id, a.event_ends_at_ms FROM assignments a JOIN events e ON e.id = a.event_id
      WHERE a.miner_hotkey = p_miner AND a.status = 'available' AND a.agent_version_id = p_version
        AND a.event_ends_at_ms > p_now AND e.body #>> '{resolution,resolutionStatus}' = 'unresolved' AND NOT e.retired
      ORDER BY a.event_ends_at_ms, a.id LIMIT 1)
    UNION ALL
    (SELECT a.id, a.event_ends_at_ms FROM assignments a JOIN events e ON e.id = a.event_id
      WHERE a.miner_hotkey = p_miner AND a.status = 'in_progress' AND a.lease_expires_at_ms <= p_now
        AND a.agent_version_id = p_version AND a.event_ends_at_ms > p_now
        AND e.body #>> '{resolution,resolutionStatus}' = 'unresolved' AND NOT e.retired
      ORDER BY a.event_ends_at_ms, a.id LIMIT 1)
  ) c ORDER BY c.event_ends_at_ms, c.id LIMIT 1);
END;
$$;

-- The fewest leases among eligible miners that have claimable work (0 when none has): the count a
-- miner that gains work joins at.
CREATE OR REPLACE FUNCTION assignment_turn_floor(p_now BIGINT)
RETURNS BIGINT LANGUAGE sql STABLE AS $$
  SELECT COALESCE(min(m.leased_count), 0) FROM assignment_miners m
  WHERE m.eligible AND next_assignment(m.miner_hotkey, m.agent_version_id, p_now, false) IS NOT NULL
$$;

-- Picks and locks the next assignment: the eligible miner with the fewest leases (then by hotkey)
-- that has claimable work, and that miner's next_assignment. Locks that miner's row, then the
-- assignment's row; returns the assignment id, or NULL when nothing is claimable.
-- Candidates come from one snapshot, and one is taken only if its row is unlocked and unchanged
-- since (FOR UPDATE SKIP LOCKED rechecks the newest row version): concurrent claimers take
-- different miners, and none takes a miner that has just been served. When every candidate with
-- work was locked or changed (more claimers in flight than miners with work), the claim waits a
-- moment and looks again (a new snapshot), up to about two seconds: it never waits on a row lock
-- while holding one, so claims cannot deadlock, and never answers "none" while work is only busy.
CREATE OR REPLACE FUNCTION pick_assignment(p_now BIGINT, p_priority BOOLEAN)
RETURNS TEXT LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  r RECORD;
  v_busy BOOLEAN;
  v_version TEXT;
  v_id TEXT;
BEGIN
  FOR attempt IN 1..200 LOOP
    v_busy := false;
    FOR r IN SELECT m.miner_hotkey, m.agent_version_id, m.leased_count FROM assignment_miners m
      WHERE m.eligible ORDER BY m.leased_count, m.miner_hotkey
    LOOP
      CONTINUE WHEN next_assignment(r.miner_hotkey, r.agent_version_id, p_now, p_priority) IS NULL;
      SELECT m.agent_version_id INTO v_version FROM assignment_miners m
        WHERE m.miner_hotkey = r.miner_hotkey AND m.eligible AND m.leased_count = r.leased_count
          AND m.agent_version_id = r.agent_version_id
        FOR UPDATE SKIP LOCKED;
      IF NOT FOUND THEN
        v_busy := true;
        CONTINUE;
      END IF;
      v_id := next_assignment(r.miner_hotkey, v_version, p_now, p_priority);
      CONTINUE WHEN v_id IS NULL;
      PERFORM 1 FROM assignments a WHERE a.id = v_id
        AND (a.status = 'available' OR (a.status = 'in_progress' AND a.lease_expires_at_ms <= p_now))
        FOR UPDATE;
      IF FOUND THEN
        RETURN v_id;
      END IF;
    END LOOP;
    EXIT WHEN NOT v_busy;
    PERFORM pg_sleep(0.001 * least(attempt, 10));
  END LOOP;
  RETURN NULL;
END;
$$;

-- Claims at most one assignment for p_holder: one call, one transaction. Returns
-- {"outcome":"limit","live":n} | {"outcome":"none"} | {"outcome":"claimed","assignment":{row},"event":{body}}.
-- Claims of one holder are serialised by an advisory lock, so the live-lease count each one reads
-- (a fresh snapshot per statement, after the lock) includes the others' claims: maxLive is exact.
-- Fresh runs first (when any is claimable), then ordinary work; the lease expires on the server's
-- clock, and the event's prices as stored at this moment are recorded with it.
CREATE OR REPLACE FUNCTION claim_assignment(p_holder TEXT, p_lease_ms BIGINT, p_max_live INTEGER)
RETURNS JSONB LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_now BIGINT;
  v_live INTEGER;
  v_id TEXT;
  v_miner TEXT;
  v_assignment JSONB;
  v_event JSONB;
BEGIN
  PERFORM pg_advisory_xact_lock(7007, hashtext(p_holder));
  v_now := storage_now_ms();
  SELECT count(*) INTO v_live FROM (SELECT 1 FROM assignments
    WHERE lease_holder = p_holder AND status = 'in_progress' AND lease_expires_at_ms > v_now
    LIMIT p_max_live) live;
  IF v_live >= p_max_live THEN
    RETURN jsonb_build_object('outcome', 'limit', 'live', v_live);
  END IF;
  IF NOT EXISTS (SELECT 1 FROM assignments a WHERE a.status = 'available' AND a.event_ends_at_ms > v_now)
      AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.status = 'in_progress'
        AND a.lease_expires_at_ms <= v_now AND a.event_ends_at_ms > v_now) THEN
    RETURN jsonb_build_object('outcome', 'none');
  END IF;
  IF EXISTS (SELECT 1 FROM assignments a WHERE a.round > 0 AND a.status IN ('available', 'in_progress')
      AND (a.status = 'available' OR a.lease_expires_at_ms <= v_now) AND a.event_ends_at_ms > v_now) THEN
    v_id := pick_assignment(v_now, true);
  END IF;
  IF v_id IS NULL THEN
    v_id := pick_assignment(v_now, false);
  END IF;
  IF v_id IS NULL THEN
    RETURN jsonb_build_object('outcome', 'none');
  END IF;
  UPDATE assignments a SET status = 'in_progress', lease_holder = p_holder,
      lease_token = gen_random_uuid()::TEXT, leased_at_ms = v_now,
      lease_expires_at_ms = v_now + p_lease_ms,
      lease_prices = COALESCE(e.body -> 'currentOutcomePrices', '{}'::JSONB),
      lease_count = a.lease_count + 1
    FROM events e WHERE a.id = v_id AND e.id = a.event_id
    RETURNING to_jsonb(a), e.body, a.miner_hotkey INTO v_assignment, v_event, v_miner;
  UPDATE assignment_miners SET leased_count = leased_count + 1 WHERE miner_hotkey = v_miner;
  RETURN jsonb_build_object('outcome', 'claimed', 'assignment', v_assignment, 'event', v_event);
END;
$$;
