-- The sliding rate window, written once for every script that counts a request in one (admit,
-- admitReplay, admitKeyChange); createLimitScripts.ts puts it where a script says `--@include rateWindow`.
-- Reads Redis TIME once: `now_us` and `now_ms` are the script's clock from here on.
local time = redis.call('TIME')
local now_us = tonumber(time[1]) * 1000000 + tonumber(time[2])
local now_ms = math.floor(now_us / 1000)

-- Whole seconds until `us` (µs), at least 1: what Retry-After and the RateLimit reset say.
local function seconds_until(us)
  local s = math.ceil((us - now_us) / 1000000)
  if s < 1 then s = 1 end
  return s
end

-- Counts `member` in the window ZSET `key` (score = µs) unless `limit` entries are in it already.
-- Returns counted (boolean), remaining, reset_s (until the oldest entry leaves), retry_s (0 when counted;
-- else when enough entries leave for the count to drop below the limit).
local function count_in_window(key, limit, window, member)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now_us - window)
  local count = redis.call('ZCARD', key)
  if count >= limit then
    local entry = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    return false, 0, seconds_until(tonumber(oldest[2]) + window), seconds_until(tonumber(entry[2]) + window)
  end
  redis.call('ZADD', key, now_us, member)
  redis.call('PEXPIRE', key, math.ceil(window / 1000) + 1000)
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return true, limit - count - 1, seconds_until(tonumber(oldest[2]) + window), 0
end
