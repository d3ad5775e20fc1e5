-- Models (docs/models.md#the-http-api): an account's own behavioural models, each name a list of immutable,
-- content-addressed versions. A version is never updated: a new definition is a new row with the next
-- number, and a definition equal to the latest (same digest) makes none. Deleting a name marks every one of
-- its versions deleted instead of removing them, because a run recorded in the history names its version
-- and its replay must make the same records again (docs/models.md).
CREATE TABLE models (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (name ~ '^[a-z][a-z0-9_]{0,39}$'),
  version integer NOT NULL CHECK (version >= 1),
  -- sha256: + hex of the canonical definition (keys sorted, no whitespace).
  digest text NOT NULL CHECK (digest ~ '^sha256:[0-9a-f]{64}$'),
  -- json, not jsonb: the definition's own key order is kept (its first profile is the default one, and
  -- GET answers the definition as it was written).
  definition json NOT NULL,
  warnings jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  PRIMARY KEY (account_id, name, version)
);

-- The primary key serves every read: the latest live version of a name is one probe of it read backwards,
-- and an account's list is a range of it (a few hundred rows at most: max_models names).

-- A plan's number of live model names. The default is the smallest plan's, for a plan an operator adds
-- without naming it.
ALTER TABLE plans ADD COLUMN max_models integer NOT NULL DEFAULT 3 CHECK (max_models >= 0);
UPDATE plans SET max_models = 50 WHERE name = 'pro';
UPDATE plans SET max_models = 500 WHERE name = 'enterprise';

-- The ledger names the model version a run was made from (NULL for a preset run): the history shows it and
-- a replay runs that version, deleted or not. `preset` holds the model's name, as the result's `preset` does.
ALTER TABLE simulations ADD COLUMN model_version integer CHECK (model_version IS NULL OR model_version >= 1);
ALTER TABLE simulations ADD COLUMN model_digest text;
ALTER TABLE simulations ADD CONSTRAINT simulations_model_check CHECK ((model_version IS NULL) = (model_digest IS NULL));
