/**
 * One round trip decides a simulation request's admission, atomically, in the order of checks of
 * DECISIONS: rate limit → (validation, decided by the caller before the call) → monthly requests →
 * monthly interactions → concurrency slot. Either everything is taken (a rate-window entry, the quota
 * reservation and a slot) or, past the rate limiter, nothing is.
 *
 * Keys share the `{accountId}` hash tag so the script runs on Redis Cluster.
 *   KEYS[1] rate window   ZSET member=request id, score=µs timestamp from Redis TIME
 *   KEYS[2] quota         HASH requests, interactions (reserved + committed in the period)
 *   KEYS[3] slots         ZSET member=simulation id, score=lease expiry in ms
 * ARGV: 1 rpm, 2 window µs, 3 request id, 4 count the rate entry (1|0: 0 on a retry after a reload),
 *       5 admit (1 = the request is valid and wants quota, 0 = stop after the rate limiter),
 *       6 monthly requests, 7 monthly interactions, 8 interactions requested, 9 max concurrent,
 *       10 simulation id, 11 lease ms, 12 quota key ttl s
 * Returns {outcome, rate_remaining, rate_reset_s, a, b}:
 *   outcome 0 admitted; 1 rate limited (a = retry after s); 2 quota not loaded (rebuild, then retry
 *   with ARGV[4]=0); 3 monthly requests used up (a = used); 4 monthly interactions exceeded (a = used);
 *   5 concurrency full (a = retry after s); 6 rate counted, admission not asked.
 */
export const ADMISSION_SCRIPT = `
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

if ARGV[4] == '1' then
  if count >= rpm then
    -- Admission resumes when enough entries leave for the count to drop below the limit.
    local entry = redis.call('ZRANGE', KEYS[1], count - rpm, count - rpm, 'WITHSCORES')
    local retry = seconds_until(tonumber(entry[2]) + window)
    local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
    return {1, 0, seconds_until(tonumber(oldest[2]) + window), retry, 0}
  end
  redis.call('ZADD', KEYS[1], now_us, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000) + 1000)
  count = count + 1
end

local remaining = rpm - count
if remaining < 0 then remaining = 0 end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = 0
if oldest[2] then reset = seconds_until(tonumber(oldest[2]) + window) end

if ARGV[5] ~= '1' then
  return {6, remaining, reset, 0, 0}
end

if redis.call('EXISTS', KEYS[2]) == 0 then
  return {2, remaining, reset, 0, 0}
end
local used_requests = tonumber(redis.call('HGET', KEYS[2], 'requests') or '0')
local used_interactions = tonumber(redis.call('HGET', KEYS[2], 'interactions') or '0')
local requested = tonumber(ARGV[8])
if used_requests >= tonumber(ARGV[6]) then
  return {3, remaining, reset, used_requests, 0}
end
if used_interactions + requested > tonumber(ARGV[7]) then
  return {4, remaining, reset, used_interactions, 0}
end

redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now_ms)
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[9]) then
  return {5, remaining, reset, 1, 0}
end

redis.call('ZADD', KEYS[3], now_ms + tonumber(ARGV[11]), ARGV[10])
redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[11]) + 1000)
redis.call('HINCRBY', KEYS[2], 'requests', 1)
redis.call('HINCRBY', KEYS[2], 'interactions', requested)
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[12]))
return {0, remaining, reset, 0, 0}
`;

/**
 * Seeds a period's quota counters from the ledger, unless another process got there first: the first
 * seed wins, and later reservations increment it.
 *   KEYS[1] quota HASH; ARGV: 1 requests, 2 interactions, 3 ttl s
 */
export const SEED_QUOTA_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'requests', ARGV[1], 'interactions', ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`;

/**
 * Gives a failed or timed-out run's reservation back, and frees its slot. Called once per simulation
 * (the ledger's status transition makes it idempotent). A missing quota hash is left missing: the next
 * admission rebuilds it from the ledger, which already reflects the give-back.
 *   KEYS[1] quota HASH, KEYS[2] slots ZSET; ARGV: 1 interactions, 2 simulation id
 */
export const RELEASE_SCRIPT = `
redis.call('ZREM', KEYS[2], ARGV[2])
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'requests', -1)
  redis.call('HINCRBY', KEYS[1], 'interactions', -tonumber(ARGV[1]))
end
return 1
`;
