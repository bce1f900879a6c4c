-- The metagraph the service believes in (one row per subnet, with the time of its last successful
-- sync), its neurons, and every (hotkey, uid) pair ever seen with the time it was first seen.
-- Stake and emission are u64 rao on chain: NUMERIC(20, 0) holds every u64 (BIGINT stops at 2^63).
CREATE TABLE IF NOT EXISTS metagraph_syncs (
  netuid INTEGER PRIMARY KEY,
  block BIGINT NOT NULL,
  synced_at_ms BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS metagraph_neurons (
  netuid INTEGER NOT NULL REFERENCES metagraph_syncs (netuid),
  uid INTEGER NOT NULL,
  hotkey TEXT NOT NULL,
  coldkey TEXT NOT NULL,
  active BOOLEAN NOT NULL,
  validator_permit BOOLEAN NOT NULL,
  stake_rao NUMERIC(20, 0) NOT NULL,
  emission_rao NUMERIC(20, 0) NOT NULL,
  incentive DOUBLE PRECISION NOT NULL,
  consensus DOUBLE PRECISION NOT NULL,
  trust DOUBLE PRECISION NOT NULL,
  validator_trust DOUBLE PRECISION NOT NULL,
  dividends DOUBLE PRECISION NOT NULL,
  last_update BIGINT NOT NULL,
  PRIMARY KEY (netuid, uid),
  UNIQUE (netuid, hotkey)
);

CREATE TABLE IF NOT EXISTS metagraph_pairs (
  netuid INTEGER NOT NULL,
  uid INTEGER NOT NULL,
  hotkey TEXT NOT NULL,
  first_seen_at_ms BIGINT NOT NULL,
  PRIMARY KEY (netuid, uid, hotkey)
);
CREATE INDEX IF NOT EXISTS metagraph_pairs_by_hotkey ON metagraph_pairs (netuid, hotkey);
