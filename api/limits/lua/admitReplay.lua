-- Admission of a replay (a history replay, GET /v1/simulations/{id}/records, or an idempotent replay of
-- POST /v1/simulations), kept apart from admit.lua on purpose: a replay passes the same rate window
-- (includes/rateWindow.lua) and takes a slot of the same concurrency set as a new run, but counts against
-- no monthly quota, so this script never reads or writes the quota hash. Same keys, same encodings, same
-- `{accountId}` hash tag as admit.lua.
--   KEYS[1] rate window   ZSET member=request id, score=µs timestamp from Redis TIME
--   KEYS[2] slots         ZSET member=replay id, score=lease expiry in ms
-- ARGV: 1 rpm, 2 window µs, 3 request id, 4 take a slot (1 = the run may be replayed, 0 = stop after the
--       rate limiter), 5 max concurrent, 6 replay id, 7 lease ms
-- Returns {outcome, rate_remaining, rate_reset_s, a}: LIMIT_OUTCOMES (createLimitScripts.ts) admitted;
--   rateLimited (a = retry after s); concurrencyFull (a = retry after s); rateCounted, no slot asked.
--@include rateWindow

local counted, remaining, reset, retry = count_in_window(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3])
if not counted then
  return {1, 0, reset, retry}
end
if ARGV[4] ~= '1' then
  return {6, remaining, reset, 0}
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now_ms)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then
  return {5, remaining, reset, 1}
end
redis.call('ZADD', KEYS[2], now_ms + tonumber(ARGV[7]), ARGV[6])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[7]) + 1000)
return {0, remaining, reset, 0}
