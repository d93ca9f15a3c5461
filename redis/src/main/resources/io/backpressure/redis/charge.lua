-- One hand-back: NestedBuckets.charge (what a fail-open wrapper admitted while this state could not
-- answer, see FailOpenGate), as one atomic step. Runs after nested_buckets.lua and guards.lua
-- (prepended by the client), so a charge the client has given up on changes nothing, and a charge
-- that is the first step after a state loss finds the buckets restarted empty.
--
-- KEYS: 1 config, 2 state, 3 queues, 4 seen, 5 window (see nested_buckets.lua)
-- ARGV: 1 the policy version the caller read the amounts against, 2 the time in µs ('' = the
--       server's TIME), 3.. the amount per dimension, in the policy's order
-- Returns {1} charged; {2, live version} the caller's policy version is stale (nothing changed).

local config, live = load_config(ARGV[1])
if not config then
  return { 2, live }
end
local now = current_time(ARGV[2])
if P.ramp then
  follow_ramp(now)
end
-- L1 only; it may go below empty, at most one burst below (refill pays it back at the cap's rate).
begin_step(now)
for d = 1, D do
  S[G + d] = max(S[G + d] - tonumber(ARGV[2 + d]), min(S[G + d], -P.burst[d]))
end
end_step()
return { 1 }
