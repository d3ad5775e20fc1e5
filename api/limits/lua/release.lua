-- Gives back what a run that did not complete does not pay for, and frees its slot: a failed or timed-out
-- run (or one cancelled before its first bytes) its request and all its interactions, a run cancelled
-- after them the interactions not made. Called once per simulation (the stale-run sweeper, for a ledger
-- row an earlier version left queued, makes it so). A missing quota hash is left missing: the next
-- admission rebuilds it from the ledger, which already reflects the give-back.
--   KEYS[1] quota HASH, KEYS[2] slots ZSET
-- ARGV[1], JSON (api/limits/createLimitScripts.ts `ReleaseArguments`): requests, interactions (to give
--   back), slot (the slot's member; absent when the slot was already freed)
--@include addToQuota
local args = cjson.decode(ARGV[1])
if args.slot ~= nil then
  redis.call('ZREM', KEYS[2], args.slot)
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  add_to_quota(KEYS[1], 0 - args.requests, 0 - args.interactions)
end
return 1
