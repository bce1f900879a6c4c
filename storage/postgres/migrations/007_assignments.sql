-- Assignments (the validators' work queue), the predictions submitted for them and their traces.
-- See docs/assignments.md. Lock order everywhere: assignment_miners row, then assignments rows,
-- then predictions rows (claims take miner rows with SKIP LOCKED, so they never wait on them).

-- One row per miner that has had assignments: its newest agent version, whether it is eligible,
-- and its place in the round-robin (the lease sequence number of its last claim, 0 = never).
CREATE TABLE IF NOT EXISTS assignment_miners (
  miner_hotkey TEXT COLLATE "C" PRIMARY KEY,
  agent_version_id TEXT COLLATE "C" NOT NULL,
  agent_uploaded_at_ms BIGINT NOT NULL,
  eligible BOOLEAN NOT NULL,
  last_leased_seq BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS assignment_miners_turn_idx
  ON assignment_miners (last_leased_seq, miner_hotkey) WHERE eligible;
CREATE SEQUENCE IF NOT EXISTS assignment_lease_seq AS BIGINT;

CREATE TABLE IF NOT EXISTS assignments (
  id TEXT COLLATE "C" PRIMARY KEY,
  agent_version_id TEXT COLLATE "C" NOT NULL,
  event_id TEXT COLLATE "C" NOT NULL,
  round INTEGER NOT NULL,
  miner_hotkey TEXT COLLATE "C" NOT NULL,
  miner_uid INTEGER NOT NULL,
  event_ends_at_ms BIGINT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('available', 'in_progress', 'submitted', 'scored', 'retired')),
  -- From when (storage clock, ms) a claim may take it: 0 when available, the lease's expiry when
  -- in progress, NULL when submitted, scored or retired.
  claimable_at_ms BIGINT,
  lease_holder TEXT,
  lease_token TEXT,
  leased_at_ms BIGINT,
  lease_expires_at_ms BIGINT,
  lease_prices JSONB,
  lease_count INTEGER NOT NULL DEFAULT 0,
  created_at_ms BIGINT NOT NULL
);
-- A miner's queue, soonest-ending first (claims, supersede, retire of a miner).
CREATE INDEX IF NOT EXISTS assignments_queue_idx
  ON assignments (miner_hotkey, event_ends_at_ms, id) WHERE claimable_at_ms IS NOT NULL;
CREATE INDEX IF NOT EXISTS assignments_priority_idx
  ON assignments (event_ends_at_ms, id) WHERE round > 0 AND claimable_at_ms IS NOT NULL;
CREATE INDEX IF NOT EXISTS assignments_ends_idx
  ON assignments (event_ends_at_ms) WHERE claimable_at_ms IS NOT NULL;
CREATE INDEX IF NOT EXISTS assignments_held_idx
  ON assignments (lease_holder) WHERE status = 'in_progress';
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

-- Claims at most one assignment for p_holder: one call, one transaction. Returns
-- {"outcome":"limit","live":n} | {"outcome":"none"} | {"outcome":"claimed","assignment":{row},"event":{body}}.
-- Claims of one holder are serialised by an advisory lock, so the live-lease count each one reads
-- (a fresh snapshot per statement, after the lock) includes the others' claims: maxLive is exact.
-- Pass 1 takes priority rounds (when any is claimable), pass 2 ordinary work; each pass picks the
-- eligible miner leased longest ago that has claimable work (FOR UPDATE SKIP LOCKED: concurrent
-- claimers take different miners), then its soonest-ending claimable assignment.
CREATE OR REPLACE FUNCTION claim_assignment(p_holder TEXT, p_lease_ms BIGINT, p_max_live INTEGER)
RETURNS JSONB LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_now BIGINT;
  v_live INTEGER;
  v_priority BOOLEAN;
  v_miner TEXT;
  v_version TEXT;
  v_id TEXT;
  v_tried TEXT[] := '{}';
  v_assignment JSONB;
  v_event JSONB;
BEGIN
  PERFORM pg_advisory_xact_lock(7007, hashtext(p_holder));
  v_now := storage_now_ms();
  SELECT count(*) INTO v_live FROM assignments
    WHERE lease_holder = p_holder AND status = 'in_progress' AND lease_expires_at_ms > v_now;
  IF v_live >= p_max_live THEN
    RETURN jsonb_build_object('outcome', 'limit', 'live', v_live);
  END IF;
  v_priority := EXISTS (SELECT 1 FROM assignments a
    WHERE a.round > 0 AND a.claimable_at_ms <= v_now AND a.event_ends_at_ms > v_now);
  FOR attempt IN 1..16 LOOP
    SELECT m.miner_hotkey, m.agent_version_id INTO v_miner, v_version FROM assignment_miners m
      WHERE m.eligible AND m.miner_hotkey <> ALL (v_tried) AND EXISTS (
        SELECT 1 FROM assignments a JOIN events e ON e.id = a.event_id
        WHERE a.miner_hotkey = m.miner_hotkey AND a.agent_version_id = m.agent_version_id
          AND (a.round > 0 OR NOT v_priority)
          AND a.claimable_at_ms <= v_now AND a.event_ends_at_ms > v_now
          AND e.body #>> '{resolution,resolutionStatus}' = 'unresolved')
      ORDER BY m.last_leased_seq, m.miner_hotkey
      LIMIT 1 FOR UPDATE OF m SKIP LOCKED;
    IF v_miner IS NULL THEN
      EXIT WHEN NOT v_priority;
      v_priority := false;
      v_tried := '{}';
      CONTINUE;
    END IF;
    SELECT a.id INTO v_id FROM assignments a JOIN events e ON e.id = a.event_id
      WHERE a.miner_hotkey = v_miner AND a.agent_version_id = v_version
        AND (a.round > 0 OR NOT v_priority)
        AND a.claimable_at_ms <= v_now AND a.event_ends_at_ms > v_now
        AND e.body #>> '{resolution,resolutionStatus}' = 'unresolved'
      ORDER BY a.event_ends_at_ms, a.id
      LIMIT 1 FOR UPDATE OF a SKIP LOCKED;
    EXIT WHEN v_id IS NOT NULL;
    v_tried := v_tried || v_miner;
    v_miner := NULL;
  END LOOP;
  IF v_id IS NULL THEN
    RETURN jsonb_build_object('outcome', 'none');
  END IF;
  UPDATE assignments a SET status = 'in_progress', lease_holder = p_holder,
      lease_token = gen_random_uuid()::TEXT, leased_at_ms = v_now,
      lease_expires_at_ms = v_now + p_lease_ms, claimable_at_ms = v_now + p_lease_ms,
      lease_prices = COALESCE(e.body -> 'currentOutcomePrices', '{}'::JSONB),
      lease_count = a.lease_count + 1
    FROM events e WHERE a.id = v_id AND e.id = a.event_id
    RETURNING to_jsonb(a), e.body INTO v_assignment, v_event;
  UPDATE assignment_miners SET last_leased_seq = nextval('assignment_lease_seq')
    WHERE miner_hotkey = v_miner;
  RETURN jsonb_build_object('outcome', 'claimed', 'assignment', v_assignment, 'event', v_event);
END;
$$;
