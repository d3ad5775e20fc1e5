-- Server-side browser sessions. The cookie carries only this id, encrypted and authenticated.
CREATE TABLE sessions (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  invalidated_at timestamptz
);

CREATE INDEX sessions_account_id_idx ON sessions (account_id);
