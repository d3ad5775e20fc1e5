-- Rebuilds a period's quota counter and the rate window when Redis lost them (a flush, a restart, a
-- failed-over node) or the period is new: from the ledger's settled rows, read by the caller, and the
-- in-flight entries of runs not yet in the ledger, read here. The first rebuild wins; later reservations
-- increment it. The ledger's admissions of the last window and the in-flight runs join the rate window
-- under their simulation ids, the members admit.lua gave them, so no run is counted twice.
--
-- When the account's marker is missing, Redis lost this account's data (or never had it): runs still in
-- flight on API processes are not in the in-flight hash until their processes put them back
-- (reassert.lua, a few times a second), so the first rebuild sets the marker to when counting may begin:
-- `hold` ms from now for an account with runs this period, and no earlier than `hold until` (a whole
-- Redis lost a moment ago: api/limits/admitSimulation.ts).
--   KEYS[1] quota HASH, KEYS[2] rate window ZSET, KEYS[3] in-flight HASH, KEYS[4] marker STRING
--   ARGV: 1 requests, 2 interactions (the ledger's, this period), 3 ttl s, 4 window µs, 5 period key,
--   6 hold ms (0: the account has no runs this period), 7 hold until ms, 8 ids of in-flight entries the
--   ledger already has (comma-separated), then pairs: admitted-at µs, simulation id (the ledger's
--   admissions of the window)
-- Returns {waitMs, seeded}: waitMs > 0 asks the caller to come back then; seeded is 1 when this call
-- rebuilt the counter.
local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now_ms = math.floor(now_us / 1000)
local window = tonumber(ARGV[4])

local marker = tonumber(redis.call('GET', KEYS[4]) or '-1')
if marker < 0 then
  marker = math.max(now_ms + tonumber(ARGV[6]), tonumber(ARGV[7]))
  redis.call('SET', KEYS[4], string.format('%.0f', marker))
end
if now_ms < marker then
  return {marker - now_ms, 0}
end

local added = 0
for i = 9, #ARGV, 2 do
  local at = tonumber(ARGV[i])
  if at > now_us - window then
    added = added + redis.call('ZADD', KEYS[2], 'NX', at, ARGV[i + 1])
  end
end

local seeding = redis.call('EXISTS', KEYS[1]) == 0
local in_ledger = {}
for id in string.gmatch(ARGV[8], '[^,]+') do
  in_ledger[id] = true
end
local requests = tonumber(ARGV[1])
local interactions = tonumber(ARGV[2])
local entries = redis.call('HGETALL', KEYS[3])
for i = 1, #entries, 2 do
  local id = entries[i]
  local entry = cjson.decode(entries[i + 1])
  if entry.t > now_us - window then
    added = added + redis.call('ZADD', KEYS[2], 'NX', entry.t, id)
  end
  if in_ledger[id] then
    -- The ledger counted its row; its process forgets it once it sees the counter.
    if seeding and entry.s ~= 'run' then
      redis.call('HDEL', KEYS[3], id)
    end
  elseif seeding and entry.p == ARGV[5] then
    if entry.s == 'run' then
      requests = requests + 1
      interactions = interactions + entry.n
    else
      requests = requests + entry.c[1]
      interactions = interactions + entry.c[2]
    end
  end
end
if added > 0 then
  redis.call('PEXPIRE', KEYS[2], math.ceil(window / 1000) + 1000)
end
if not seeding then
  return {0, 0}
end
redis.call('HSET', KEYS[1], 'requests', string.format('%.0f', requests), 'interactions', string.format('%.0f', interactions))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return {0, 1}
