-- Admission of a replay (a history replay, GET /v1/simulations/{id}/records, or an idempotent replay of
-- POST /v1/simulations), kept apart from admit.lua on purpose: a replay passes the same rate window
-- (includes/rateWindow.lua) and takes a slot of the same concurrency set as a new run, but counts against
-- no monthly quota, so this script never reads or writes the quota hash. Same keys, same encodings, same
-- `{accountId}` hash tag as admit.lua.
--   KEYS[1] rate window   ZSET member=request id, score=µs timestamp from Redis TIME
--   KEYS[2] slots         ZSET member=replay id, score=lease expiry in ms
-- ARGV[1], JSON (api/limits/createLimitScripts.ts `AdmitReplayArguments`): rpm, windowUs, requestId,
--   takeSlot (the run may be replayed; false: stop after the rate limiter), maxConcurrent, runId (the
--   replay's own id, the slot's member), leaseMs
-- Returns {outcome, rate_remaining, rate_reset_s, value}: LIMIT_OUTCOMES (createLimitScripts.ts) admitted;
--   rateLimited (value = retry after s); concurrencyFull (value = retry after s); rateCounted, no slot asked.
--@include rateWindow
local args = cjson.decode(ARGV[1])

local counted, remaining, reset, retry = count_in_window(KEYS[1], args.rpm, args.windowUs, args.requestId)
if not counted then
  return {1, 0, reset, retry}
end
if not args.takeSlot then
  return {6, remaining, reset, 0}
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now_ms)
if redis.call('ZCARD', KEYS[2]) >= args.maxConcurrent then
  return {5, remaining, reset, 1}
end
redis.call('ZADD', KEYS[2], now_ms + args.leaseMs, args.runId)
redis.call('PEXPIRE', KEYS[2], args.leaseMs + 1000)
return {0, remaining, reset, 0}
