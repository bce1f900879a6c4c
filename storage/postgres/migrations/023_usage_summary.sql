-- The usage view's summary (docs/billing.md, "Usage"): per organisation, dimension, dimension
-- value and UTC quarter-hour of the settle (at_ms / 900000), the Σ of the usage records' amounts
-- and their count. The values of a record ('' when it has none; metadata values only as strings):
-- key = key_id, model = metadata.model, provider = metadata.provider, miner = miner_hotkey,
-- validator = metadata.validatorHotkey (storage/usage_store.ts, `usageDimensionValues`).
CREATE TABLE IF NOT EXISTS org_usage_buckets (
  org_id TEXT NOT NULL,
  dimension TEXT NOT NULL CHECK (dimension IN ('key', 'model', 'provider', 'miner', 'validator')),
  quarter INTEGER NOT NULL,
  value TEXT NOT NULL,
  spend_micro BIGINT NOT NULL,
  calls BIGINT NOT NULL,
  PRIMARY KEY (org_id, dimension, quarter, value)
) WITH (fillfactor = 90);

-- Written by the statement that inserts the usage records, whichever path commits them (a single
-- commit, a batch, a grouped commit of several orgs): one upsert per statement, summed per bucket,
-- in the same transaction. Every path has locked the orgs' rows by then, so an org's buckets are
-- written by one transaction at a time and never deadlock.
CREATE OR REPLACE FUNCTION org_usage_add_to_buckets() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO org_usage_buckets AS b (org_id, dimension, quarter, value, spend_micro, calls)
  SELECT n.org_id, d.dimension, (n.at_ms / 900000)::int, d.value, sum(n.amount_micro)::bigint, count(*)
  FROM new_usage n CROSS JOIN LATERAL (VALUES
    ('key', coalesce(n.key_id, '')),
    ('model', CASE WHEN jsonb_typeof(n.metadata -> 'model') = 'string' THEN n.metadata ->> 'model' ELSE '' END),
    ('provider',
      CASE WHEN jsonb_typeof(n.metadata -> 'provider') = 'string' THEN n.metadata ->> 'provider' ELSE '' END),
    ('miner', coalesce(n.miner_hotkey, '')),
    ('validator', CASE WHEN jsonb_typeof(n.metadata -> 'validatorHotkey') = 'string'
      THEN n.metadata ->> 'validatorHotkey' ELSE '' END)
  ) AS d (dimension, value)
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (org_id, dimension, quarter, value)
  DO UPDATE SET spend_micro = b.spend_micro + EXCLUDED.spend_micro, calls = b.calls + EXCLUDED.calls;
  RETURN NULL;
END;
$$;

-- Created before the backfill below: it locks org_usage against inserts until this migration
-- commits, so every record is counted once, by the backfill or by the trigger.
DROP TRIGGER IF EXISTS org_usage_add_to_buckets ON org_usage;
CREATE TRIGGER org_usage_add_to_buckets AFTER INSERT ON org_usage
  REFERENCING NEW TABLE AS new_usage FOR EACH STATEMENT EXECUTE FUNCTION org_usage_add_to_buckets();

INSERT INTO org_usage_buckets AS b (org_id, dimension, quarter, value, spend_micro, calls)
SELECT n.org_id, d.dimension, (n.at_ms / 900000)::int, d.value, sum(n.amount_micro)::bigint, count(*)
FROM org_usage n CROSS JOIN LATERAL (VALUES
  ('key', coalesce(n.key_id, '')),
  ('model', CASE WHEN jsonb_typeof(n.metadata -> 'model') = 'string' THEN n.metadata ->> 'model' ELSE '' END),
  ('provider',
    CASE WHEN jsonb_typeof(n.metadata -> 'provider') = 'string' THEN n.metadata ->> 'provider' ELSE '' END),
  ('miner', coalesce(n.miner_hotkey, '')),
  ('validator', CASE WHEN jsonb_typeof(n.metadata -> 'validatorHotkey') = 'string'
    THEN n.metadata ->> 'validatorHotkey' ELSE '' END)
) AS d (dimension, value)
GROUP BY 1, 2, 3, 4
ON CONFLICT (org_id, dimension, quarter, value)
DO UPDATE SET spend_micro = EXCLUDED.spend_micro, calls = EXCLUDED.calls;

-- An org's validator completions by settle time (`UsageStore.leaseCalls`: its miners' LLM spend
-- by lease outcome). Partial: customer calls are not in it.
CREATE INDEX IF NOT EXISTS org_usage_lease_calls_idx ON org_usage (org_id, at_ms)
  WHERE metadata ? 'agentPredictionId';

-- The available amount below which an org's owners are warned (null: no warning).
ALTER TABLE orgs ADD COLUMN IF NOT EXISTS low_balance_micro BIGINT CHECK (low_balance_micro >= 0);
