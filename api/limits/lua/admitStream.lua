-- Reserves a stream's quota at creation (docs/streams.md): one request and its num_interactions, refused
-- as a simulation's would be (403s). Streams take no simulation slot and no rate-window entry of their own
-- here (the creation's concurrency is decided in PostgreSQL: db/queries/streams.ts).
--   KEYS[1] quota  HASH requests, interactions
-- ARGV[1], JSON (api/limits/createLimitScripts.ts `AdmitStreamArguments`): monthlyRequests,
--   monthlyInteractions, interactions (requested), quotaTtlS
-- Returns {outcome, 0, 0, value}: LIMIT_OUTCOMES (createLimitScripts.ts) admitted; quotaNotLoaded (rebuild,
-- ask again); monthlyRequestsUsedUp, monthlyInteractionsExceeded (value = used).
local args = cjson.decode(ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {2, 0, 0, 0}
end
local used_requests = tonumber(redis.call('HGET', KEYS[1], 'requests') or '0')
local used_interactions = tonumber(redis.call('HGET', KEYS[1], 'interactions') or '0')
if used_requests >= args.monthlyRequests then
  return {3, 0, 0, used_requests}
end
if used_interactions + args.interactions > args.monthlyInteractions then
  return {4, 0, 0, used_interactions}
end
redis.call('HINCRBY', KEYS[1], 'requests', 1)
redis.call('HINCRBY', KEYS[1], 'interactions', args.interactions)
redis.call('EXPIRE', KEYS[1], args.quotaTtlS)
return {0, 0, 0, 0}
