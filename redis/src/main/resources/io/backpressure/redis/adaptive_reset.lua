-- Resets a target's adaptive concurrency limit to its min (RedisPolicyStore.resetConcurrencyLimit,
-- the admin's 'concurrency reset'): the stored limit and its last decrease are dropped, so the next
-- admission finds the min, as on a target whose limit never moved. The audit entry is appended in
-- the same step, so the trail never misses a reset nor tells of one that did not happen. Runs after
-- nested_buckets.lua and limits.lua (prepended by the client), whose adaptive_state reads the limit
-- as an admission does.
--
-- KEYS: 1 limits (hash: 'adaptive' -> "limit last_decrease"), 2 the audit stream
-- ARGV: 1 the adaptive limit's min, 2 its max, 3 the most entries the trail keeps, 4 the entry's at,
--       5 actor, 6 action (AuditEntry.RESET), 7 field (concurrency.adaptive)
-- Returns the limit in force before the reset.
local min = ARGV[1] * 1
local before = adaptive_state(KEYS[1], min, ARGV[2] * 1)
-- The entry first: a script's writes are not undone when a later command fails.
call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'at', ARGV[4], 'actor', ARGV[5],
    'action', ARGV[6], 'field', ARGV[7], 'before', 'limit ' .. fmt(before),
    'after', 'limit ' .. fmt(min))
call('HDEL', KEYS[1], 'adaptive')
return { fmt(before) }
