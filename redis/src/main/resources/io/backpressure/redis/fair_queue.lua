-- A read-only view of one queue of the rebuilt rule as of its last step, in the shape queue.lua gives
-- of an L3 bucket (InMemoryGate.queueState of a gate deciding with FairRule, FairRule.queue). Runs
-- after nested_buckets.lua, the schema and fair_rule.lua (prepended by the client).
--
-- KEYS: 1 config, 2 state, 3 queues (see fair_rule.lua)
-- ARGV: 1 the version of the policy the client named the class by ('' = it knows none), 2 the
--       queue's field, "<class index from 0>:<tenant>"
-- Returns the live version first, and only it when that is not ARGV[1] or when the rule keeps no
-- such queue (active or resting); else then, as exact decimal strings: how far its finish tag is
-- behind the last step (last - finish, µs), 0 (it has no bucket), its part of its class's served
-- rate (weight × servedRate × 10^6 / max(the class's active weight, weight), units per second),
-- its weight, and when it was last seen (µs).
local config = call('HMGET', KEYS[1], 'version', 'params')
local version, params = config[1] or '', config[2]
if version ~= ARGV[1] or not params then
  return { version }
end
local raw = call('GET', KEYS[2])
local record = call('HGET', KEYS[3], ARGV[2])
if not raw or not record then
  return { version }
end
P = decode_params(params)
layout(P.dims, P.classes)
lay_out()
if #raw ~= 8 * STATE_SIZE then
  return { version }
end
S = { struct_unpack(doubles(STATE_SIZE), raw) }
local q = {}
local values = { struct_unpack(doubles(#QUEUE_FIELDS), record) }
for i, name in ipairs(QUEUE_FIELDS) do
  q[name] = values[i]
end
local k = tonumber(string.match(ARGV[2], '^(%d+):')) + 1
local weights = math.max(S[FIELD.weightSum + k], q.weight)
return { version, fmt(S[FIELD.last + 1] - q.finish), '0',
  fmt(q.weight * S[FIELD.servedRate + k] * 1e6 / weights), fmt(q.weight), fmt(q.seen) }
