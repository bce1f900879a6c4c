-- The purge of spend counters that can no longer matter (docs/billing.md, "Purge of spend
-- counters"). A lease's counter gets the latest UTC day of a hold that named it: every move keeps
-- the later of its day and the hold's (`cap_day`). A row stored before is dated the day this
-- migration runs, and a row an instance of the previous version inserts (naming no day) the day it
-- does: the purge then waits from that day, never less than from the real one. Each counter table gets an index on its
-- day, which the purge reads from the oldest.
ALTER TABLE lease_llm_spend ADD COLUMN IF NOT EXISTS day TEXT NOT NULL
  DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD')
  CHECK (day ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$');

CREATE INDEX IF NOT EXISTS miner_daily_spend_day_idx ON miner_daily_spend (day);
CREATE INDEX IF NOT EXISTS validator_miner_daily_spend_day_idx ON validator_miner_daily_spend (day);
CREATE INDEX IF NOT EXISTS lease_llm_spend_day_idx ON lease_llm_spend (day);
