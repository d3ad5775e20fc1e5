-- Seeds a period's quota counters and the rate window from the ledger. The quota is seeded unless another
-- process got there first (the first seed wins, later reservations increment it); the ledger's admissions
-- of the last window join the rate window under their simulation ids, the members the admission script
-- gave them, so a run already in the window is never counted twice.
--   KEYS[1] quota HASH, KEYS[2] rate window ZSET
--   ARGV: 1 requests, 2 interactions, 3 ttl s, 4 window µs, then pairs: admitted-at µs, simulation id
local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[4])
local added = 0
for i = 5, #ARGV, 2 do
  local at = tonumber(ARGV[i])
  if at > now_us - window then
    added = added + redis.call('ZADD', KEYS[2], 'NX', at, ARGV[i + 1])
  end
end
if added > 0 then
  redis.call('PEXPIRE', KEYS[2], math.ceil(window / 1000) + 1000)
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'requests', ARGV[1], 'interactions', ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
