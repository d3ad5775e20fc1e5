-- Live streams (docs/streams.md). A stream is its inputs (the envelopes are a function of
-- them, so no event is stored), its clock (created_at, speed, start_time) and its delivery state: how far
-- its events are due (`delivered`) and, for a webhook, the last acknowledged position and batch, and the
-- batch in flight (so a resend after a lost worker carries the same Idempotency-Key and body).
ALTER TABLE plans ADD COLUMN max_concurrent_streams integer NOT NULL DEFAULT 1 CHECK (max_concurrent_streams > 0);
UPDATE plans SET max_concurrent_streams = CASE name WHEN 'pro' THEN 5 WHEN 'enterprise' THEN 50 ELSE 1 END;

CREATE TABLE streams (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'cancelled', 'failed')),
  -- The simulation request's fields with the seed drawn and defaults filled, as the Stream echoes them.
  request jsonb NOT NULL,
  speed double precision NOT NULL CHECK (speed > 0),
  start_time timestamptz NOT NULL,
  num_interactions integer NOT NULL CHECK (num_interactions > 0),
  -- Envelopes in all (records plus their second deliveries), known at creation.
  total_events integer NOT NULL CHECK (total_events >= num_interactions),
  delivered integer NOT NULL DEFAULT 0 CHECK (delivered >= 0),
  -- {"type":"sse"} or {"type":"webhook","url","batch_max","batch_ms"}: never the secret.
  sink jsonb NOT NULL,
  -- The webhook secret sealed with AES-256-GCM under a key derived from SESSION_SECRET (shown once).
  webhook_secret_sealed text,
  acknowledged integer NOT NULL DEFAULT 0 CHECK (acknowledged >= 0),
  acknowledged_batch integer NOT NULL DEFAULT 0,
  -- {"batch","first","last"}: the batch being delivered, fixed before its first try.
  inflight_batch jsonb,
  last_error jsonb,
  -- The monthly period the reservation counts against, and what was charged once finished.
  period_start timestamptz NOT NULL,
  charged_requests integer,
  charged_interactions integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);

CREATE INDEX streams_history_idx ON streams (account_id, created_at DESC, id DESC);
CREATE INDEX streams_running_idx ON streams (account_id) WHERE status = 'running';
