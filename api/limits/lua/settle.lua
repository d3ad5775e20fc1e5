-- Settles an admitted run in Redis, while its owner writes its ledger row (the only PostgreSQL write of a
-- run; api/runs/createRun.ts): frees its slot, turns its reservation into what it is charged, and marks its
-- in-flight entry settled with the row it leads to, so whoever finds the entry later (seedLimits.lua after
-- a lost Redis, the stale-run sweeper after a lost API process) knows what it counts and what to write.
--   KEYS[1] quota HASH, KEYS[2] slots ZSET, KEYS[3] in-flight HASH
-- ARGV[1], JSON (api/limits/createLimitScripts.ts `SettleArguments`): runId, requests and interactions
--   (charged), entry (the settled entry, JSON text), ttlS (the in-flight hash's)
-- Returns 1 when this call settled the run, 0 when it was settled already (by the stale-run sweeper, whose
-- row and the owner's are one: the ledger keeps the first, ON CONFLICT DO NOTHING).
--
-- An entry that is missing was lost with Redis's data and not yet put back by its API process
-- (reassert.lua): the quota rebuilt since counts neither its reservation nor its row, which does not
-- exist yet, so the charge is added to it.
--@include addToQuota
--@include inflightEntry
local args = cjson.decode(ARGV[1])
redis.call('ZREM', KEYS[2], args.runId)
local entry = read_entry(redis.call('HGET', KEYS[3], args.runId))
if entry and entry.state ~= 'run' then
  return 0
end
local requests = args.requests
local interactions = args.interactions
if entry then
  requests = requests - 1
  interactions = interactions - entry.reserved
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  add_to_quota(KEYS[1], requests, interactions)
end
redis.call('HSET', KEYS[3], args.runId, args.entry)
redis.call('EXPIRE', KEYS[3], args.ttlS)
return 1
