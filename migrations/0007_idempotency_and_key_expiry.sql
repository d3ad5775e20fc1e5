-- A rolled key keeps working until expires_at (null unless rolled), then fails like a revoked key.
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;

-- Idempotency-Key records (docs/api.md#safe-retries-idempotency-key). The primary key is the truth that makes two
-- simultaneous requests with one key, on any API process, run once: only one INSERT can win it. A row is
-- `running` while its first request runs (held by claim_token until locked_until, so a crashed process
-- cannot block the key for a whole day) and `completed` once that request answered 2xx; a failed first
-- attempt deletes its row. What a completed row keeps is small and fixed in size: the recorded inputs of a
-- simulation (its records are regenerated on replay) or the created form of a key without the key.
CREATE TABLE idempotency_keys (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  idempotency_key text NOT NULL CHECK (char_length(idempotency_key) BETWEEN 1 AND 255),
  -- SHA-256 of method, path, canonical body and Accept.
  fingerprint bytea NOT NULL,
  status text NOT NULL CHECK (status IN ('running', 'completed')),
  claim_token uuid NOT NULL,
  locked_until timestamptz NOT NULL,
  response_status integer,
  response jsonb,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, idempotency_key)
);

CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at);
