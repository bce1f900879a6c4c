-- Every hold id an org ever reserved, kept after the hold is settled, released or expired, so that
-- a hold id is never reused (the primary key refuses a second reserve of it) and a late settle of
-- a hold that is gone can tell "reserved, then released" (it charges) from "never reserved" (404).
CREATE TABLE IF NOT EXISTS org_hold_reservations (
  org_id TEXT NOT NULL REFERENCES orgs (id),
  hold_id TEXT NOT NULL,
  amount_micro BIGINT NOT NULL CHECK (amount_micro > 0),
  created_at_ms BIGINT NOT NULL,
  expires_at_ms BIGINT NOT NULL,
  PRIMARY KEY (org_id, hold_id)
);

-- Holds in flight when this migration runs. (Holds released or expired before it have no record:
-- a late settle of one of those answers 404; settled ones are refused by their ledger entry.)
INSERT INTO org_hold_reservations (org_id, hold_id, amount_micro, created_at_ms, expires_at_ms)
  SELECT org_id, hold_id, amount_micro, created_at_ms, expires_at_ms FROM org_holds
  ON CONFLICT DO NOTHING;

-- Keyset pages of expired holds: (expires_at_ms, org_id, hold_id) > the previous page's last.
CREATE INDEX IF NOT EXISTS org_holds_expiry_key_idx ON org_holds (expires_at_ms, org_id, hold_id);
DROP INDEX IF EXISTS org_holds_expiry_idx;
