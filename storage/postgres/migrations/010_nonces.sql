-- Signature nonces: one row per (hotkey, nonce) until it expires on the server's clock
-- (storage_now_ms()). An expired row counts as absent; purge_expired deletes them.
CREATE TABLE IF NOT EXISTS signature_nonces (
  hotkey TEXT COLLATE "C" NOT NULL,
  nonce TEXT COLLATE "C" NOT NULL,
  expires_at_ms BIGINT NOT NULL,
  PRIMARY KEY (hotkey, nonce)
);
CREATE INDEX IF NOT EXISTS signature_nonces_expiry_idx ON signature_nonces (expires_at_ms);
