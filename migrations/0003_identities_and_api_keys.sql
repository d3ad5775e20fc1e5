-- A linked identity provider login. An account is found by (provider, provider_user_id), never by e-mail
-- alone; e-mail matters only for linking a second provider, and only when verified.
CREATE TABLE identities (
  provider text NOT NULL CHECK (provider IN ('github', 'google')),
  provider_user_id text NOT NULL,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  email text,
  email_verified boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, provider_user_id)
);

CREATE INDEX identities_account_id_idx ON identities (account_id);

-- Only a digest of each key is kept: a database leak reveals no usable key.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  key_digest bytea NOT NULL UNIQUE,
  key_prefix text NOT NULL,
  -- clock_timestamp, not now(): keys created in one transaction still list newest first.
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  last_used_at timestamptz,
  revoked_at timestamptz
);

CREATE INDEX api_keys_account_id_created_at_idx ON api_keys (account_id, created_at DESC);
