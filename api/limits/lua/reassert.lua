-- Puts back the in-flight entries of runs an API process still holds, after Redis lost them (a flush, a
-- restart without persistence, a failed-over Cluster node). Each process calls it for the runs it holds,
-- one call per account and period, a few times a second (api/simulations/createLeaseKeeper.ts), so a
-- rebuilt quota counts the runs that were in flight when the data went; a rebuild waits for this
-- (seedLimits.lua) before it counts.
--   KEYS[1] quota HASH, KEYS[2] in-flight HASH
--   ARGV: 1 the in-flight hash's ttl s, then per run: simulation id, entry (JSON), requests it counts,
--   interactions it counts
-- Returns how many entries were put back.
--@include addToQuota
local quota = redis.call('EXISTS', KEYS[1]) == 1
local put = 0
for i = 2, #ARGV, 4 do
  if redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 1]) == 1 then
    put = put + 1
    -- A quota rebuilt since the loss did not see the entry: it counts the run now. One still missing
    -- counts it when it is rebuilt.
    if quota then
      add_to_quota(KEYS[1], tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3]))
    end
  end
end
if put > 0 then
  redis.call('EXPIRE', KEYS[2], tonumber(ARGV[1]))
end
return put
