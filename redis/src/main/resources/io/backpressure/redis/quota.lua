-- Reads or resets one quota counter of the limits (RedisPolicyStore.quotaUse and resetQuota; the
-- twin of LimitLedger.counter and LimitLedger.reset). Runs after nested_buckets.lua and limits.lua
-- (prepended by the client), whose limit_window, limit_count and limit_store it uses, so it reads
-- and writes a counter exactly as an admission does. A reset appends its audit entry in the same
-- step, so the trail never misses a reset nor tells of one that did not happen.
--
-- KEYS: 1 limits (hash: counter field -> "start used held"), 2 the audit stream (a reset)
-- ARGV: 1 'read' or 'reset', 2 counter field, 3 period (1 day, 2 month), 4 now µs ('' = the
--       server's TIME), then as limits.lua reads a plan from L = 4: 5 and 6 unused, 7..10 the day's
--       boundaries, 11..14 the month's; for a reset, 15 the most entries the trail keeps, 16 the
--       actor, 17 the action (AuditEntry.RESET), 18 the field the entry names
--       (quotas.tenants.<name>, quotas.classes.<name>).
-- Returns {now, window start, used, held} as exact decimal strings: what the counter held in the
-- window that holds now (zeros when it holds nothing of it), before a reset.

-- An instant in µs since the epoch as ISO-8601 in UTC with six decimals, as java.time.Instant
-- parses it: the days to a civil date by H. Hinnant's days_from_civil, inverted.
local function iso_instant(micros)
  local seconds = math.floor(micros / 1000000)
  local days = math.floor(seconds / 86400)
  local of_day = seconds - days * 86400
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524)
      - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local day = doy - math.floor((153 * mp + 2) / 5) + 1
  local month = mp < 10 and mp + 3 or mp - 9
  local year = yoe + era * 400 + (month <= 2 and 1 or 0)
  return string.format('%04d-%02d-%02dT%02d:%02d:%02d.%06dZ', year, month, day,
      math.floor(of_day / 3600), math.floor(of_day % 3600 / 60), of_day % 60,
      micros - seconds * 1000000)
end

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
  -- The entry first: a script's writes are not undone when a later command fails. The use as
  -- AuditEntry.used writes it, its number exact ('%.17g' beyond whole numbers; the store reads it
  -- back as AuditEntry.used prints that number).
  call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[15], '*', 'at', iso_instant(now), 'actor', ARGV[16],
      'action', ARGV[17], 'field', ARGV[18], 'before', 'used ' .. fmt(used), 'after', 'used 0')
  limit_store(KEYS[1], ARGV[2], start, 0, 0)
end
return { fmt(now), fmt(start), fmt(used), fmt(held) }
