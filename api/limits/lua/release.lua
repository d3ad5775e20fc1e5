-- Gives back what a run that did not complete does not pay for, and frees its slot: a failed or timed-out
-- run (or one cancelled before its first bytes) its request and all its interactions, a run cancelled
-- after them the interactions not made. Called once per simulation (its lease, or the ledger's status
-- transition for the stale-run sweeper, makes it so). A missing quota hash is left missing: the next
-- admission rebuilds it from the ledger, which already reflects the give-back.
--   KEYS[1] quota HASH, KEYS[2] slots ZSET; ARGV: 1 interactions to give back, 2 the slot's member
--   (the simulation id; '' when the slot was already freed), 3 requests to give back (0 or 1)
if ARGV[2] ~= '' then
  redis.call('ZREM', KEYS[2], ARGV[2])
end
-- `0 - n`, not `-n`: Lua's -0 reaches Redis as "-0", which HINCRBY refuses (a cancelled run gives back
-- no request, and one cancelled after its last record no interactions).
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'requests', 0 - tonumber(ARGV[3]))
  redis.call('HINCRBY', KEYS[1], 'interactions', 0 - tonumber(ARGV[1]))
end
return 1
