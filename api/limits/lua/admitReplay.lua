-- Admission of a replay (a history replay, GET /v1/simulations/{id}/records, or an idempotent replay of
-- POST /v1/simulations), kept apart from admit.lua on
-- purpose: a replay passes the same rate window and takes a slot of the same concurrency set as a new
-- run, but counts against no monthly quota, so this script never reads or writes the quota hash. Same
-- keys, same encodings, same `{accountId}` hash tag as admit.lua.
--   KEYS[1] rate window   ZSET member=request id, score=µs timestamp from Redis TIME
--   KEYS[2] slots         ZSET member=replay id, score=lease expiry in ms
-- ARGV: 1 rpm, 2 window µs, 3 request id, 4 take a slot (1 = the run may be replayed, 0 = stop after the
--       rate limiter), 5 max concurrent, 6 replay id, 7 lease ms
-- Returns {outcome, rate_remaining, rate_reset_s, a}: 0 admitted; 1 rate limited (a = retry after s);
--   5 concurrency full (a = retry after s); 6 rate counted, no slot asked.
local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now_ms = math.floor(now_us / 1000)
local rpm = tonumber(ARGV[1])
local window = tonumber(ARGV[2])

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_us - window)
local count = redis.call('ZCARD', KEYS[1])

local function seconds_until(us)
  local s = math.ceil((us - now_us) / 1000000)
  if s < 1 then s = 1 end
  return s
end

if count >= rpm then
  local entry = redis.call('ZRANGE', KEYS[1], count - rpm, count - rpm, 'WITHSCORES')
  local retry = seconds_until(tonumber(entry[2]) + window)
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {1, 0, seconds_until(tonumber(oldest[2]) + window), retry}
end
redis.call('ZADD', KEYS[1], now_us, ARGV[3])
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000) + 1000)
count = count + 1

local remaining = rpm - count
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = seconds_until(tonumber(oldest[2]) + window)

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
