-- Reserves a stream's quota at creation (docs/limits.md#live-streams): one request and its num_interactions,
-- refused as a simulation's would be (403s). Streams take no simulation slot and no rate-window entry of
-- their own here (the creation's concurrency is decided in PostgreSQL: shared/db/queries/streams.ts).
--   KEYS[1] quota  HASH requests, interactions
-- ARGV: 1 monthly requests, 2 monthly interactions, 3 interactions requested, 4 quota key ttl s
-- Returns {outcome, used}: 0 admitted, 2 quota not loaded (rebuild, ask again), 3 requests used up,
-- 4 interactions exceeded (LIMIT_OUTCOMES).
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {2, 0}
end
local used_requests = tonumber(redis.call('HGET', KEYS[1], 'requests') or '0')
local used_interactions = tonumber(redis.call('HGET', KEYS[1], 'interactions') or '0')
local requested = tonumber(ARGV[3])
if used_requests >= tonumber(ARGV[1]) then
  return {3, used_requests}
end
if used_interactions + requested > tonumber(ARGV[2]) then
  return {4, used_interactions}
end
redis.call('HINCRBY', KEYS[1], 'requests', 1)
redis.call('HINCRBY', KEYS[1], 'interactions', requested)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
return {0, 0}
