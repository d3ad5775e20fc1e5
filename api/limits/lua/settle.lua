-- Settles an admitted run in Redis, before its ledger row is written (the row is the only PostgreSQL
-- write of a run): frees its slot, turns its reservation into what it is charged, and marks its in-flight
-- entry settled with the row it leads to, so whoever finds the entry later (seedLimits.lua after a lost
-- Redis, the stale-run sweeper after a lost API process) knows what it counts and what to write.
--   KEYS[1] quota HASH, KEYS[2] slots ZSET, KEYS[3] in-flight HASH
--   ARGV: 1 simulation id, 2 requests charged (0 or 1), 3 interactions charged, 4 the settled entry (JSON),
--   5 the in-flight hash's ttl s
-- Returns 1 when this call settled the run (the caller writes its row), 0 when it was settled already
-- (by the sweeper, which writes the row it settled with).
--
-- An entry that is missing was lost with Redis's data and not yet put back by its API process
-- (reassert.lua): the quota rebuilt since counts neither its reservation nor its row, which does not
-- exist yet, so the charge is added to it.
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
  -- Never a negative zero: Lua's -0 reaches Redis as "-0", which HINCRBY refuses.
  if requests ~= 0 then
    redis.call('HINCRBY', KEYS[1], 'requests', requests)
  end
  if interactions ~= 0 then
    redis.call('HINCRBY', KEYS[1], 'interactions', interactions)
  end
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
redis.call('EXPIRE', KEYS[3], tonumber(ARGV[5]))
return 1
