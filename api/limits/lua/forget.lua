-- Drops settled runs' in-flight entries once their ledger rows are committed, a batch at a time (each API
-- process sends its runs of one account and period together, every keeper interval). While the quota hash
-- is missing (Redis lost it and no admission rebuilt it yet) the entries stay: the rebuild
-- (seedLimits.lua) must see them to count a row that commits after it read the ledger, and drops them itself.
--   KEYS[1] quota HASH, KEYS[2] in-flight HASH; ARGV: simulation ids
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HDEL', KEYS[2], unpack(ARGV))
end
return 0
