-- Gives a failed or timed-out run's reservation back, and frees its slot. Called once per simulation
-- (the ledger's status transition makes it idempotent). A missing quota hash is left missing: the next
-- admission rebuilds it from the ledger, which already reflects the give-back.
--   KEYS[1] quota HASH, KEYS[2] slots ZSET; ARGV: 1 interactions, 2 simulation id
redis.call('ZREM', KEYS[2], ARGV[2])
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'requests', -1)
  redis.call('HINCRBY', KEYS[1], 'interactions', -tonumber(ARGV[1]))
end
return 1
