-- What the provider's answer changes in the rebuilt rule, right after feedback.lua learned from it:
-- InMemoryGate.feedback's applyCaps (the rule configured with the effective caps, at its last step's
-- time) and FairRule.spent for every dimension, with the spent windows feedback.lua keeps. Runs after
-- nested_buckets.lua, the schema and fair_rule.lua (prepended by the client). A target that has taken
-- no step yet has no state to change.
--
-- KEYS: 1 config, 2 state, 3 queues, 4 seen, 5 window, 6 resting (see fair_rule.lua), 7 the feedback
--       state (feedback.lua)
-- ARGV: 1 the policy version, 2 the time in µs ('' = the server's TIME)
-- Returns {1} applied (or nothing to apply); {2, live version} the caller's version is stale.

local config, live = load_config(ARGV[1])
if not config then
  return { 2, live }
end
local now = current_time(ARGV[2])
if P.ramp then
  follow_ramp(now)
end
local raw = call('GET', KEYS[7])
if not raw or call('EXISTS', KEYS[2]) == 0 then
  return { 1 }
end
local learned = cmsgpack.unpack(raw)
FairRule.load(nil, true)
for d = 1, D do
  FairRule.spent(d, learned.spent[d])
end
FairRule.save()
return { 1 }
