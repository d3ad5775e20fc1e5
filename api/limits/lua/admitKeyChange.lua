-- The rate limit of creating and rolling API keys (docs/fair-use.md#api-keys): a sliding window per account,
-- counted and decided in one call, so simultaneous requests on any number of API processes never pass
-- more than the limit.
--   KEYS[1] key-change window  ZSET member=request id, score=µs timestamp from Redis TIME
-- ARGV: 1 limit, 2 window µs, 3 request id
-- Returns {outcome, remaining, a}: LIMIT_OUTCOMES (createLimitScripts.ts) admitted, counted (a = 0); rateLimited,
--   nothing counted (a = retry after s: when enough entries leave the window for the count to drop below
--   the limit).
--@include rateWindow

local counted, remaining, _, retry = count_in_window(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3])
if not counted then
  return {1, 0, retry}
end
return {0, remaining, 0}
