-- One round trip decides a simulation request's admission, atomically, in the order of checks of the
-- contract (docs/api.md): (authentication, confirmed here for a cached principal) -> rate limit ->
-- (parsing, decided by the caller before the call) -> monthly requests -> monthly interactions ->
-- concurrency slot. Either everything is taken (a rate-window entry, the quota reservation and a slot)
-- or, past the rate limiter, nothing is.
--
-- Keys share the `{accountId}` hash tag so the script runs on Redis Cluster.
--   KEYS[1] rate window   ZSET member=simulation id, score=µs timestamp from Redis TIME
--   KEYS[2] quota         HASH requests, interactions (reserved + committed in the period)
--   KEYS[3] slots         ZSET member=simulation id, score=lease expiry in ms
--   KEYS[4] auth version  STRING the account's credential version (shared/auth/authVersion.ts)
--   KEYS[5] in-flight     HASH member=simulation id, value=the run's entry (api/limits/inflightEntry.ts)
-- ARGV[1], JSON (api/limits/createLimitScripts.ts `AdmitArguments`): rpm, windowUs, runId (the rate
--   entry, the slot and the in-flight entry), admit (the request is valid and wants quota; false: stop
--   after the rate limiter), monthlyRequests, monthlyInteractions, interactions, maxConcurrent, leaseMs,
--   quotaTtlS, authVersion (the version the caller's principal was cached under; absent: not cached),
--   entry (the run's in-flight entry but its clock, as JSON text)
-- Returns {outcome, rate_remaining, rate_reset_s, value}: LIMIT_OUTCOMES (createLimitScripts.ts);
-- admitted returns value = the admission time in µs (Redis TIME: the rate window's score and the row's
-- created_at).
--
-- An admitted run is recorded here and nowhere else until it settles: its reservation in the quota hash
-- and its entry in the in-flight hash, which holds what the ledger row will say (settle.lua, seedLimits.lua).
--@include rateWindow
local args = cjson.decode(ARGV[1])

-- A cached principal holds only while its account's version is unchanged (a missing version never matches).
if args.authVersion ~= nil and redis.call('GET', KEYS[4]) ~= args.authVersion then
  return {7, 0, 0, 0}
end
-- A missing quota counter means Redis may have lost the rate window too: both are rebuilt before counting.
if redis.call('EXISTS', KEYS[2]) == 0 then
  return {2, 0, 0, 0}
end

local counted, remaining, reset, retry = count_in_window(KEYS[1], args.rpm, args.windowUs, args.runId)
if not counted then
  return {1, 0, reset, retry}
end
if not args.admit then
  return {6, remaining, reset, 0}
end
local used_requests = tonumber(redis.call('HGET', KEYS[2], 'requests') or '0')
local used_interactions = tonumber(redis.call('HGET', KEYS[2], 'interactions') or '0')
local requested = args.interactions
if used_requests >= args.monthlyRequests then
  return {3, remaining, reset, used_requests}
end
if used_interactions + requested > args.monthlyInteractions then
  return {4, remaining, reset, used_interactions}
end

redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now_ms)
if redis.call('ZCARD', KEYS[3]) >= args.maxConcurrent then
  return {5, remaining, reset, 1}
end

local lease_until = now_ms + args.leaseMs
redis.call('ZADD', KEYS[3], lease_until, args.runId)
redis.call('PEXPIRE', KEYS[3], args.leaseMs + 1000)
redis.call('HINCRBY', KEYS[2], 'requests', 1)
redis.call('HINCRBY', KEYS[2], 'interactions', requested)
redis.call('EXPIRE', KEYS[2], args.quotaTtlS)
-- The entry as the caller built it, its clock first: admitted at (µs) and the slot's lease expiry (ms).
redis.call('HSET', KEYS[5], args.runId, '{"admittedUs":' .. string.format('%.0f', now_us) .. ',"leaseUntilMs":'
  .. string.format('%.0f', lease_until) .. ',' .. string.sub(args.entry, 2))
redis.call('EXPIRE', KEYS[5], args.quotaTtlS)
return {0, remaining, reset, now_us}
