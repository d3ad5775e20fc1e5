-- Drops a settled run's in-flight entry once its ledger row is committed. While the quota hash is missing
-- (Redis lost it and no admission rebuilt it yet) the entry stays: the rebuild (seedLimits.lua) must see
-- it to count a row that commits after the rebuild read the ledger, and drops it itself.
--   KEYS[1] quota HASH, KEYS[2] in-flight HASH; ARGV: 1 simulation id
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HDEL', KEYS[2], ARGV[1])
end
return 0
