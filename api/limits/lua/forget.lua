-- Drops settled runs' in-flight entries once their ledger rows are committed, a batch at a time (each API
-- process sends its runs of one account and period together, every keeper interval). While the quota hash
-- is missing (Redis lost it and no admission rebuilt it yet) the entries stay: the rebuild
-- (seedLimits.lua) must see them to count a row that commits after it read the ledger, and drops them itself.
--   KEYS[1] quota HASH, KEYS[2] in-flight HASH
-- ARGV[1], JSON (api/limits/createLimitScripts.ts `ForgetArguments`): runIds
-- Returns how many entries were dropped.
local args = cjson.decode(ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 1 and #args.runIds > 0 then
  return redis.call('HDEL', KEYS[2], unpack(args.runIds))
end
return 0
