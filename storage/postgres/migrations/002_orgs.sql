-- Organisations, their accounts (balance, held, version), miner hotkeys, holds, ledger and usage.
-- Money is BIGINT micro-units. balance_micro == SUM(org_ledger.amount_micro) for every org.
CREATE TABLE IF NOT EXISTS orgs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at_ms BIGINT NOT NULL,
  balance_micro BIGINT NOT NULL DEFAULT 0,
  held_micro BIGINT NOT NULL DEFAULT 0 CHECK (held_micro >= 0),
  last_usage_at_ms BIGINT,
  version BIGINT NOT NULL DEFAULT 0
);

-- A hotkey belongs to at most one org (primary key); at most one default miner per org.
CREATE TABLE IF NOT EXISTS org_miners (
  hotkey TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs (id),
  is_default BOOLEAN NOT NULL DEFAULT false,
  registered_at_ms BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS org_miners_org_idx ON org_miners (org_id, hotkey);
CREATE UNIQUE INDEX IF NOT EXISTS org_miners_one_default_idx ON org_miners (org_id) WHERE is_default;

CREATE TABLE IF NOT EXISTS org_holds (
  org_id TEXT NOT NULL REFERENCES orgs (id),
  hold_id TEXT NOT NULL,
  amount_micro BIGINT NOT NULL CHECK (amount_micro > 0),
  created_at_ms BIGINT NOT NULL,
  expires_at_ms BIGINT NOT NULL,
  PRIMARY KEY (org_id, hold_id)
);
CREATE INDEX IF NOT EXISTS org_holds_expiry_idx ON org_holds (expires_at_ms);

-- seq is the account version that wrote the entry.
CREATE TABLE IF NOT EXISTS org_ledger (
  org_id TEXT NOT NULL REFERENCES orgs (id),
  seq BIGINT NOT NULL,
  at_ms BIGINT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('credit', 'debit')),
  amount_micro BIGINT NOT NULL,
  balance_after_micro BIGINT NOT NULL,
  reference TEXT,
  hold_id TEXT,
  PRIMARY KEY (org_id, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS org_ledger_reference_idx ON org_ledger (org_id, reference)
  WHERE reference IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS org_ledger_hold_idx ON org_ledger (org_id, hold_id)
  WHERE hold_id IS NOT NULL;

-- The ledger is append-only: the database refuses to change or remove an entry.
CREATE OR REPLACE FUNCTION org_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'org_ledger is append-only';
END;
$$;
DROP TRIGGER IF EXISTS org_ledger_append_only ON org_ledger;
CREATE TRIGGER org_ledger_append_only BEFORE UPDATE OR DELETE ON org_ledger
  FOR EACH ROW EXECUTE FUNCTION org_ledger_append_only();

CREATE TABLE IF NOT EXISTS org_usage (
  org_id TEXT NOT NULL REFERENCES orgs (id),
  seq BIGINT NOT NULL,
  at_ms BIGINT NOT NULL,
  hold_id TEXT NOT NULL,
  key_id TEXT,
  miner_hotkey TEXT,
  description TEXT NOT NULL,
  metadata JSONB NOT NULL,
  amount_micro BIGINT NOT NULL,
  PRIMARY KEY (org_id, seq)
);
