-- A read-only view of the rebuilt rule's state in the shape levels.lua gives of the nested buckets'
-- (InMemoryGate.levels of a gate deciding with FairRule, FairRule.snapshot), for metrics and the
-- admin command. Runs after nested_buckets.lua, the schema and fair_rule.lua (prepended by the
-- client), whose lay_out places the fields as a step does.
--
-- KEYS: 1 config, 2 state (see fair_rule.lua), then the waiting line of each class, highest first
--       (see fair_admit.lua, purge_waiting)
-- ARGV: 1 the version of the policy the client names the levels by ('' = it knows none)
-- Returns what levels.lua returns, in its order: the live version first, and only it when that is
-- not ARGV[1] or before the first step; else then dims, classes, per dimension the cap layer's level
-- as of the last step ((tolerance - max(0, tat - last)) × rate, CapLayer.level), per class and
-- dimension 0 (the rule keeps no class buckets), active queues per class, the class's use per
-- dimension (admitted units per second, decayed over the share horizon), the time of the last step
-- (µs), then per class the first attempt (µs) of the oldest call still waiting, or -1.
local config = call('HMGET', KEYS[1], 'version', 'params')
local version, params = config[1] or '', config[2]
if version ~= ARGV[1] or not params then
  return { version }
end
local raw = call('GET', KEYS[2])
if not raw then
  return { version }
end
P = decode_params(params)
layout(P.dims, P.classes)
lay_out()
if #raw ~= 8 * STATE_SIZE then
  return { version }
end
S = { struct_unpack(doubles(STATE_SIZE), raw) }
local last = S[FIELD.last + 1]
if last == -math.huge then
  last = 0
end
local out = { version, D, K }
for d = 1, D do
  local ahead = math.max(0, S[FIELD.tat + d] - last)
  out[#out + 1] = fmt((S[FIELD.tolerance + d] - ahead) * S[FIELD.rate + d])
end
for _ = 1, K * D do
  out[#out + 1] = '0'
end
for k = 1, K do
  out[#out + 1] = S[FIELD.activeQueues + k]
end
for k = 1, K do
  for d = 1, D do
    out[#out + 1] = fmt(S[FIELD.use + at(k, d)])
  end
end
out[#out + 1] = fmt(last)
for k = 1, K do
  local head = KEYS[2 + k] and call('LINDEX', KEYS[2 + k], 0)
  if head then
    out[#out + 1] = string.match(head, '|(.*)$')
  else
    out[#out + 1] = '-1'
  end
end
return out
