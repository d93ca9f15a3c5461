-- Reads or resets one quota counter of the limits (RedisPolicyStore.quotaUse and resetQuota; the
-- twin of LimitLedger.counter and LimitLedger.reset). Runs after nested_buckets.lua and limits.lua
-- (prepended by the client), whose limit_window, limit_count and limit_store it uses, so it reads
-- and writes a counter exactly as an admission does.
--
-- KEYS: 1 limits (hash: counter field -> "start used held")
-- ARGV: 1 'read' or 'reset', 2 counter field, 3 period (1 day, 2 month), 4 now µs ('' = the
--       server's TIME), then as limits.lua reads a plan from L = 4: 5 and 6 unused, 7..10 the day's
--       boundaries, 11..14 the month's.
-- Returns {now, window start, used, held} as exact decimal strings: what the counter held in the
-- window that holds now (zeros when it holds nothing of it), before a reset.
local L = 4
local now = ARGV[4]
if now == '' then
  local t = call('TIME')
  now = t[1] * 1000000 + t[2] * 1
else
  now = now * 1
end
local start = limit_window(L, ARGV[3] * 1, now)
local used, held = limit_count(KEYS[1], ARGV[2], start)
if ARGV[1] == 'reset' then
  limit_store(KEYS[1], ARGV[2], start, 0, 0)
end
return { fmt(now), fmt(start), fmt(used), fmt(held) }
