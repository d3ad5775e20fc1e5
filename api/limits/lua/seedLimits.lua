-- Rebuilds a period's quota counter and the rate window when Redis lost them (a flush, a restart, a
-- failed-over node) or the period is new: from the ledger's settled rows, read by the caller, and the
-- in-flight entries of runs not yet in the ledger, read here. The first rebuild wins; later reservations
-- increment it. The ledger's admissions of the last window and the in-flight runs join the rate window
-- under their simulation ids, the members admit.lua gave them, so no run is counted twice.
--
-- When the account's marker is missing, Redis lost this account's data (or never had it): runs still in
-- flight on API processes are not in the in-flight hash until their processes put them back
-- (reassert.lua, a few times a second), so the first rebuild sets the marker to when counting may begin:
-- `holdMs` from now for an account with runs this period, and no earlier than `holdUntilMs` (a whole
-- Redis lost a moment ago: rebuildLimits in api/limits/admitSimulation.ts).
--   KEYS[1] quota HASH, KEYS[2] rate window ZSET, KEYS[3] in-flight HASH, KEYS[4] marker STRING
-- ARGV[1], JSON (api/limits/createLimitScripts.ts `SeedLimitsArguments`): requests, interactions (the
--   ledger's, this period), quotaTtlS, windowUs, period (`YYYY-MM`), holdMs (0: the account has no runs
--   this period), holdUntilMs, inLedger (ids of in-flight entries the ledger already has), recent (the
--   ledger's admissions of the window: [admitted at µs, simulation id] pairs)
-- Returns {waitMs, seeded}: waitMs > 0 asks the caller to come back then; seeded is 1 when this call
-- rebuilt the counter.
--@include inflightEntry
local args = cjson.decode(ARGV[1])
local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now_ms = math.floor(now_us / 1000)
local window = args.windowUs

local marker = tonumber(redis.call('GET', KEYS[4]) or '-1')
if marker < 0 then
  marker = math.max(now_ms + args.holdMs, args.holdUntilMs)
  redis.call('SET', KEYS[4], string.format('%.0f', marker))
end
if now_ms < marker then
  return {marker - now_ms, 0}
end

local added = 0
for _, admission in ipairs(args.recent) do
  local at = tonumber(admission[1])
  if at > now_us - window then
    added = added + redis.call('ZADD', KEYS[2], 'NX', string.format('%.0f', at), admission[2])
  end
end

local seeding = redis.call('EXISTS', KEYS[1]) == 0
local in_ledger = {}
for _, id in ipairs(args.inLedger) do
  in_ledger[id] = true
end
local requests = args.requests
local interactions = args.interactions
local entries = redis.call('HGETALL', KEYS[3])
for i = 1, #entries, 2 do
  local id = entries[i]
  local entry = read_entry(entries[i + 1])
  if entry.admitted_us > now_us - window then
    added = added + redis.call('ZADD', KEYS[2], 'NX', string.format('%.0f', entry.admitted_us), id)
  end
  if in_ledger[id] then
    -- The ledger counted its row; its process forgets it once it sees the counter.
    if seeding and entry.state ~= 'run' then
      redis.call('HDEL', KEYS[3], id)
    end
  elseif seeding and entry.period == args.period then
    if entry.state == 'run' then
      requests = requests + 1
      interactions = interactions + entry.reserved
    else
      requests = requests + entry.charged_requests
      interactions = interactions + entry.charged_interactions
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
redis.call('EXPIRE', KEYS[1], args.quotaTtlS)
return {0, 1}
