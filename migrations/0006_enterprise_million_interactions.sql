-- Responses stream (docs/formats.md#large-runs-are-streamed), so no process holds a whole run: the
-- enterprise plan's per-request maximum rises to 1,000,000 interactions. Other plans keep theirs.
UPDATE plans SET max_interactions_per_request = 1000000 WHERE name = 'enterprise';
