-- Puts back the in-flight entries of runs an API process still holds, after Redis lost them (a flush, a
-- restart without persistence, a failed-over Cluster node). Each process calls it for the runs it holds,
-- one call per account and period, a few times a second (api/limits/createLeaseKeeper.ts), so a rebuilt
-- quota counts the runs that were in flight when the data went; a rebuild waits for this (seedLimits.lua)
-- before it counts.
--   KEYS[1] quota HASH, KEYS[2] in-flight HASH
-- ARGV[1], JSON (api/limits/createLimitScripts.ts `ReassertArguments`): ttlS (the in-flight hash's), runs:
--   [{runId, entry (JSON text), requests, interactions (what the entry counts in the quota)}]
-- Returns how many entries were put back.
--@include addToQuota
local args = cjson.decode(ARGV[1])
local quota = redis.call('EXISTS', KEYS[1]) == 1
local put = 0
for _, run in ipairs(args.runs) do
  if redis.call('HSETNX', KEYS[2], run.runId, run.entry) == 1 then
    put = put + 1
    -- A quota rebuilt since the loss did not see the entry: it counts the run now. One still missing
    -- counts it when it is rebuilt.
    if quota then
      add_to_quota(KEYS[1], run.requests, run.interactions)
    end
  end
end
if put > 0 then
  redis.call('EXPIRE', KEYS[2], args.ttlS)
end
return put
