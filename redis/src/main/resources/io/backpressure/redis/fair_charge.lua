-- One hand-back with the rebuilt rule: FairRule.charge (what a fail-open wrapper admitted while this
-- state could not answer), as one atomic step. Runs after nested_buckets.lua, the schema,
-- fair_rule.lua and guards.lua (prepended by the client).
--
-- KEYS: 1 config, 2 state, 3 queues, 4 seen, 5 window, 6 resting (see fair_rule.lua)
-- ARGV: 1 the policy version, 2 the time in µs ('' = the server's TIME), 3.. the amount per dimension
-- Returns {1} charged; {2, live version} the caller's policy version is stale (nothing changed).

local config, live = load_config(ARGV[1])
if not config then
  return { 2, live }
end
local now = current_time(ARGV[2])
if P.ramp then
  follow_ramp(now)
end
local spent = {}
for d = 1, D do
  spent[d] = ARGV[2 + d] * 1
end
FairRule.load(now, true)
FairRule.charge(now, spent)
FairRule.save()
return { 1 }
