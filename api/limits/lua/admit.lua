-- One round trip decides a simulation request's admission, atomically, in the order of checks
-- (docs/limits.md#order-of-checks): (authentication, confirmed here for a cached principal) -> rate limit ->
-- (validation, decided by the caller before the call) -> monthly requests -> monthly interactions ->
-- concurrency slot. Either everything is taken (a rate-window entry, the quota reservation and a slot) or, past
-- the rate limiter, nothing is.
--
-- Keys share the `{accountId}` hash tag so the script runs on Redis Cluster.
--   KEYS[1] rate window   ZSET member=simulation id, score=µs timestamp from Redis TIME
--   KEYS[2] quota         HASH requests, interactions (reserved + committed in the period)
--   KEYS[3] slots         ZSET member=simulation id, score=lease expiry in ms
--   KEYS[4] auth version  STRING the account's credential version (shared/auth/authVersion.ts)
--   KEYS[5] in-flight     HASH member=simulation id, value=the run's entry (api/simulations/inflightEntry.ts)
-- ARGV: 1 rpm, 2 window µs, 3 simulation id (the rate entry, the slot and the in-flight entry), 4 admit
--       (1 = the request is valid and wants quota, 0 = stop after the rate limiter), 5 monthly requests,
--       6 monthly interactions, 7 interactions requested, 8 max concurrent, 9 lease ms, 10 quota key ttl s,
--       11 the auth version the caller's principal was cached under ('' = not cached, nothing to check),
--       12 the period key, 13 the run's ledger fields as JSON (the entry's `r`)
-- Returns {outcome, rate_remaining, rate_reset_s, a, b}: see LIMIT_OUTCOMES (createLimitScripts.ts); admitted
-- returns a = the admission time in µs (Redis TIME: the rate window's score and the row's created_at).
--
-- An admitted run is recorded here and nowhere else until it settles: its reservation in the quota hash
-- and its entry in the in-flight hash, which holds what the ledger row will say (settle.lua, seedLimits.lua).
--@include rateWindow
local rpm = tonumber(ARGV[1])
local window = tonumber(ARGV[2])

-- A cached principal holds only while its account's version is unchanged (a missing version never matches).
if ARGV[11] ~= '' and redis.call('GET', KEYS[4]) ~= ARGV[11] then
  return {7, 0, 0, 0, 0}
end
-- A missing quota counter means Redis may have lost the rate window too: both are rebuilt before counting.
if redis.call('EXISTS', KEYS[2]) == 0 then
  return {2, 0, 0, 0, 0}
end

local counted, remaining, reset, retry = count_in_window(KEYS[1], rpm, window, ARGV[3])
if not counted then
  return {1, 0, reset, retry, 0}
end
if ARGV[4] ~= '1' then
  return {6, remaining, reset, 0, 0}
end
local used_requests = tonumber(redis.call('HGET', KEYS[2], 'requests') or '0')
local used_interactions = tonumber(redis.call('HGET', KEYS[2], 'interactions') or '0')
local requested = tonumber(ARGV[7])
if used_requests >= tonumber(ARGV[5]) then
  return {3, remaining, reset, used_requests, 0}
end
if used_interactions + requested > tonumber(ARGV[6]) then
  return {4, remaining, reset, used_interactions, 0}
end

redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now_ms)
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[8]) then
  return {5, remaining, reset, 1, 0}
end

redis.call('ZADD', KEYS[3], now_ms + tonumber(ARGV[9]), ARGV[3])
redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[9]) + 1000)
redis.call('HINCRBY', KEYS[2], 'requests', 1)
redis.call('HINCRBY', KEYS[2], 'interactions', requested)
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[10]))
local lease_until = now_ms + tonumber(ARGV[9])
redis.call('HSET', KEYS[5], ARGV[3], '{"s":"run","p":' .. cjson.encode(ARGV[12]) .. ',"n":' .. requested
  .. ',"t":' .. string.format('%.0f', now_us) .. ',"e":' .. string.format('%.0f', lease_until) .. ',"r":' .. ARGV[13] .. '}')
redis.call('EXPIRE', KEYS[5], tonumber(ARGV[10]))
return {0, remaining, reset, now_us, 0}
