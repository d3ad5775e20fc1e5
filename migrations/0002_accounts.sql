CREATE TABLE accounts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  display_name text NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  plan text NOT NULL DEFAULT 'free' REFERENCES plans (name),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Not unique: an identity whose e-mail is unverified must not take over the account that owns the
-- address, so it gets an account of its own with the same address (see identities).
CREATE INDEX accounts_email_idx ON accounts (lower(email));
