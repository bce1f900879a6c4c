-- Job leases get fencing tokens and expire on the server's clock.
-- Every grant of a lease takes the next value of job_lease_tokens, so a job's tokens only grow and
-- are never reused, even after a release deletes the row. expires_at_ms is now milliseconds on the
-- server's clock (storage_now_ms()), which is the same unit as before: rows an instance of the
-- previous version wrote stay meaningful. Fencing holds once every instance runs this version (the
-- previous one takes leases without a new token).
CREATE SEQUENCE IF NOT EXISTS job_lease_tokens AS BIGINT;
ALTER TABLE job_leases ADD COLUMN IF NOT EXISTS token BIGINT NOT NULL DEFAULT 0;

-- The storage's clock in Unix milliseconds, read when called (not at the transaction's start).
CREATE OR REPLACE FUNCTION storage_now_ms() RETURNS BIGINT LANGUAGE sql VOLATILE AS $$
  SELECT (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT
$$;
