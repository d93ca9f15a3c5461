-- An overload answer under an adaptive concurrency limit (LimitLedger.overload): the limit halves,
-- down to its min, unless it decreased less than a latency target ago. Runs after nested_buckets.lua
-- and limits.lua (prepended by the client), whose current_time and limits_decrease it uses.
--
-- KEYS: 1 limits (hash; field 'adaptive' -> "limit last_decrease")
-- ARGV: 1 the time in µs ('' = the server's TIME), 2 the adaptive limit's min, 3 its max, 4 its
--       latency target in µs
-- Returns nothing.

limits_decrease(KEYS[1], current_time(ARGV[1]), ARGV[2] * 1, ARGV[3] * 1, ARGV[4] * 1)
