-- Spend caps of validator completions beyond the miner's day (docs/billing.md, "Spend caps of
-- validator completions"): a capped hold may also name the validator making the call and the lease
-- it is made for (kept with its reservation, so a late settle finds them). Each (validator, miner,
-- day) and each lease has one counter = Σ held + Σ charged by the capped holds that name it,
-- changed in the same commit as the hold, its settle and its release.
ALTER TABLE org_holds ADD COLUMN IF NOT EXISTS cap_validator TEXT, ADD COLUMN IF NOT EXISTS cap_lease TEXT;
ALTER TABLE org_hold_reservations
  ADD COLUMN IF NOT EXISTS cap_validator TEXT, ADD COLUMN IF NOT EXISTS cap_lease TEXT;

CREATE TABLE IF NOT EXISTS validator_miner_daily_spend (
  validator_hotkey TEXT NOT NULL,
  miner_hotkey TEXT NOT NULL,
  day TEXT NOT NULL CHECK (day ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
  spent_micro BIGINT NOT NULL,
  PRIMARY KEY (validator_hotkey, miner_hotkey, day)
);

CREATE TABLE IF NOT EXISTS lease_llm_spend (
  agent_prediction_id TEXT PRIMARY KEY,
  spent_micro BIGINT NOT NULL
);

-- The usage records of a lease's calls (`BillingStore.leaseUsage`): what the scored-prediction
-- rows and the predictions as read sum, a page of leases at a time.
CREATE INDEX IF NOT EXISTS org_usage_lease_idx ON org_usage ((metadata ->> 'agentPredictionId'))
  WHERE metadata ? 'agentPredictionId';
