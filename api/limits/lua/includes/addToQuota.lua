-- Adds to a quota hash's counters, written once for the scripts that move them by a run's amounts
-- (settle, reassert). A zero is skipped: Lua's -0 reaches Redis as "-0", which HINCRBY refuses.
local function add_to_quota(key, requests, interactions)
  if requests ~= 0 then
    redis.call('HINCRBY', key, 'requests', requests)
  end
  if interactions ~= 0 then
    redis.call('HINCRBY', key, 'interactions', interactions)
  end
end
