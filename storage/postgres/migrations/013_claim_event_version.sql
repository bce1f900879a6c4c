-- claim_assignment (007) also returns the stored version of the event it hands out, so that a
-- submission judged against that event can be stored in one statement that checks the version
-- (docs/assignments.md). Otherwise unchanged.

CREATE OR REPLACE FUNCTION claim_assignment(p_holder TEXT, p_lease_ms BIGINT, p_max_live INTEGER)
RETURNS JSONB LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_now BIGINT;
  v_live INTEGER;
  v_id TEXT;
  v_miner TEXT;
  v_assignment JSONB;
  v_event JSONB;
  v_event_version INTEGER;
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
    RETURNING to_jsonb(a), e.body, e.version, a.miner_hotkey INTO v_assignment, v_event, v_event_version, v_miner;
  UPDATE assignment_miners SET leased_count = leased_count + 1 WHERE miner_hotkey = v_miner;
  RETURN jsonb_build_object('outcome', 'claimed', 'assignment', v_assignment, 'event', v_event,
    'eventVersion', v_event_version);
END;
$$;
