-- The dashboard's identities: members, invitations, passkeys, sessions, sign-in challenges, the
-- audit log, and how a miner hotkey was registered (by the operator, or linked with proof) and the
-- member it signs in as.
ALTER TABLE org_miners ADD COLUMN IF NOT EXISTS linked_with_proof BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE org_miners ADD COLUMN IF NOT EXISTS bound_member_id TEXT;

-- A member belongs to exactly one org.
CREATE TABLE IF NOT EXISTS members (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs (id),
  display_name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner', 'viewer')),
  created_at_ms BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS members_org_idx ON members (org_id, created_at_ms, id);
CREATE INDEX IF NOT EXISTS org_miners_bound_member_idx ON org_miners (bound_member_id)
  WHERE bound_member_id IS NOT NULL;

-- secret_hash: lowercase hex SHA-256 of the link's secret; the secret itself is never stored.
CREATE TABLE IF NOT EXISTS member_invitations (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs (id),
  role TEXT NOT NULL CHECK (role IN ('owner', 'viewer')),
  kind TEXT NOT NULL CHECK (kind IN ('join', 'reenrol')),
  member_id TEXT REFERENCES members (id),
  secret_hash TEXT NOT NULL,
  created_at_ms BIGINT NOT NULL,
  expires_at_ms BIGINT NOT NULL,
  CHECK ((kind = 'reenrol') = (member_id IS NOT NULL))
);
CREATE INDEX IF NOT EXISTS member_invitations_org_idx ON member_invitations (org_id, created_at_ms, id);
CREATE INDEX IF NOT EXISTS member_invitations_expiry_idx ON member_invitations (expires_at_ms);
CREATE INDEX IF NOT EXISTS member_invitations_member_idx ON member_invitations (member_id)
  WHERE member_id IS NOT NULL;

CREATE TABLE IF NOT EXISTS passkey_credentials (
  credential_id TEXT PRIMARY KEY,
  member_id TEXT NOT NULL REFERENCES members (id),
  public_key BYTEA NOT NULL,
  sign_count BIGINT NOT NULL CHECK (sign_count >= 0),
  transports TEXT[] NOT NULL,
  created_at_ms BIGINT NOT NULL,
  last_used_at_ms BIGINT
);
CREATE INDEX IF NOT EXISTS passkey_credentials_member_idx ON passkey_credentials (member_id, created_at_ms);

-- A session's member may be removed while an instance reads it: no foreign key, the read joins.
CREATE TABLE IF NOT EXISTS dashboard_sessions (
  id TEXT PRIMARY KEY,
  secret_hash TEXT NOT NULL,
  member_id TEXT NOT NULL,
  org_id TEXT NOT NULL,
  via_hotkey TEXT,
  created_at_ms BIGINT NOT NULL,
  last_seen_at_ms BIGINT NOT NULL,
  expires_at_ms BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS dashboard_sessions_member_idx ON dashboard_sessions (member_id);
CREATE INDEX IF NOT EXISTS dashboard_sessions_hotkey_idx ON dashboard_sessions (via_hotkey)
  WHERE via_hotkey IS NOT NULL;
CREATE INDEX IF NOT EXISTS dashboard_sessions_expiry_idx ON dashboard_sessions (expires_at_ms);

CREATE TABLE IF NOT EXISTS signin_challenges (
  challenge_hash TEXT PRIMARY KEY,
  browser_hash TEXT NOT NULL,
  purpose TEXT NOT NULL,
  created_at_ms BIGINT NOT NULL,
  expires_at_ms BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS signin_challenges_expiry_idx ON signin_challenges (expires_at_ms);

-- by_kind 'operator' (by_member_id NULL) or 'member'; listed newest first.
CREATE TABLE IF NOT EXISTS audit_log (
  org_id TEXT NOT NULL REFERENCES orgs (id),
  at_ms BIGINT NOT NULL,
  id TEXT COLLATE "C" NOT NULL,
  by_kind TEXT NOT NULL CHECK (by_kind IN ('operator', 'member')),
  by_member_id TEXT,
  action TEXT NOT NULL,
  subject TEXT NOT NULL,
  details JSONB NOT NULL,
  PRIMARY KEY (org_id, at_ms, id)
);
