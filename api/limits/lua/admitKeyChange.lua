-- The rate limit of creating and rolling API keys (DECISIONS "Key rolls"): a sliding window per account,
-- counted and decided in one call, so simultaneous requests on any number of API processes never pass
-- more than the limit.
--   KEYS[1] key-change window  ZSET member=request id, score=µs timestamp from Redis TIME
-- ARGV: 1 limit, 2 window µs, 3 request id
-- Returns {outcome, remaining, a}: 0 counted (a = 0); 1 refused, nothing counted (a = retry after s: when
--   enough entries leave the window for the count to drop below the limit).
local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_us - window)
local count = redis.call('ZCARD', KEYS[1])
if count >= limit then
  local entry = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
  local retry = math.ceil((tonumber(entry[2]) + window - now_us) / 1000000)
  if retry < 1 then retry = 1 end
  return {1, 0, retry}
end
redis.call('ZADD', KEYS[1], now_us, ARGV[3])
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000) + 1000)
return {0, limit - count - 1, 0}
