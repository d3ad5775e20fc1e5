-- The rate limit of creating and rolling API keys (docs/api.md, key rolls): a sliding window per account,
-- counted and decided in one call, so simultaneous requests on any number of API processes never pass
-- more than the limit.
--   KEYS[1] key-change window  ZSET member=request id, score=µs timestamp from Redis TIME
-- ARGV[1], JSON (api/limits/createLimitScripts.ts `AdmitKeyChangeArguments`): limit, windowUs, requestId
-- Returns {outcome, remaining, reset_s, value}: LIMIT_OUTCOMES (createLimitScripts.ts) admitted, counted;
--   rateLimited, nothing counted (value = retry after s: when enough entries leave the window for the
--   count to drop below the limit).
--@include rateWindow
local args = cjson.decode(ARGV[1])

local counted, remaining, reset, retry = count_in_window(KEYS[1], args.limit, args.windowUs, args.requestId)
if not counted then
  return {1, 0, reset, retry}
end
return {0, remaining, reset, 0}
