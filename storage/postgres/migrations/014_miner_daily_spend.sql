-- Per-miner daily caps on validator completions (DESIGN §6): a capped hold names its miner and
-- the UTC day it counts against (kept with its reservation, so a late settle finds it), and each
-- (miner, day) has one counter = Σ held + Σ charged by its capped holds. The counter changes in the
-- same commit as the hold, its settle and its release.
ALTER TABLE org_holds ADD COLUMN IF NOT EXISTS cap_miner TEXT, ADD COLUMN IF NOT EXISTS cap_day TEXT;
ALTER TABLE org_hold_reservations
  ADD COLUMN IF NOT EXISTS cap_miner TEXT, ADD COLUMN IF NOT EXISTS cap_day TEXT;

CREATE TABLE IF NOT EXISTS miner_daily_spend (
  miner_hotkey TEXT NOT NULL,
  day TEXT NOT NULL CHECK (day ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
  spent_micro BIGINT NOT NULL,
  PRIMARY KEY (miner_hotkey, day)
);
