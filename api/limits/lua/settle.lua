-- Settles an admitted run in Redis, while its lease writes its ledger row (the only PostgreSQL write of a
-- run; api/simulations/createRunLease.ts): frees its slot, turns its reservation into what it is charged, and marks its in-flight
-- entry settled with the row it leads to, so whoever finds the entry later (seedLimits.lua after a lost
-- Redis, the stale-run sweeper after a lost API process) knows what it counts and what to write.
--   KEYS[1] quota HASH, KEYS[2] slots ZSET, KEYS[3] in-flight HASH
--   ARGV: 1 simulation id, 2 requests charged (0 or 1), 3 interactions charged, 4 the settled entry (JSON),
--   5 the in-flight hash's ttl s
-- Returns 1 when this call settled the run, 0 when it was settled already (by the stale-run sweeper, whose
-- row and the lease's are one: the ledger keeps the first, ON CONFLICT DO NOTHING).
--
-- An entry that is missing was lost with Redis's data and not yet put back by its API process
-- (reassert.lua): the quota rebuilt since counts neither its reservation nor its row, which does not
-- exist yet, so the charge is added to it.
--@include addToQuota
redis.call('ZREM', KEYS[2], ARGV[1])
local raw = redis.call('HGET', KEYS[3], ARGV[1])
local entry = raw and cjson.decode(raw)
if entry and entry.s ~= 'run' then
  return 0
end
local requests = tonumber(ARGV[2])
local interactions = tonumber(ARGV[3])
if entry then
  requests = requests - 1
  interactions = interactions - entry.n
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  add_to_quota(KEYS[1], requests, interactions)
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
redis.call('EXPIRE', KEYS[3], tonumber(ARGV[5]))
return 1
