-- Gives back what a run that did not complete does not pay for, and frees its slot: a failed or timed-out
-- run (or one cancelled before its first bytes) its request and all its interactions, a run cancelled
-- after them the interactions not made. Called once per simulation (the ledger's status transition makes
-- it idempotent). A missing quota hash is left missing: the next admission rebuilds it from the ledger,
-- which already reflects the give-back.
--   KEYS[1] quota HASH, KEYS[2] slots ZSET; ARGV: 1 interactions to give back, 2 simulation id,
--   3 requests to give back (0 or 1)
redis.call('ZREM', KEYS[2], ARGV[2])
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'requests', -tonumber(ARGV[3]))
  redis.call('HINCRBY', KEYS[1], 'interactions', -tonumber(ARGV[1]))
end
return 1
