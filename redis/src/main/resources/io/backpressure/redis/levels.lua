-- A read-only view of a target's buckets as of its last step, for metrics and the admin command.
-- Runs after nested_buckets.lua (prepended by the client), whose decode_params, layout and
-- decode_state read the parameters and the state exactly as a step does.
--
-- KEYS: 1 config, 2 state (see nested_buckets.lua for both layouts), then the waiting line of each
--       class, highest first (see admit.lua, purge_waiting)
-- ARGV: 1 the version of the policy the client names the levels by ('' = it knows none)
-- Returns the live version first ('' when the target has no policy), and only it when that is not
-- ARGV[1] (the client reads the policy again and asks again) or before the first step; else then
-- {dims, classes, L1 level per dimension, L2 level per class and dimension (class-major), active
-- queues per class, class usage average (admitted units per second) per class and dimension
-- (class-major), the time of the last step (µs), then per class the first attempt (µs) of the
-- oldest call still waiting, or -1 (InMemoryGate.levels)}, numbers other than counts as exact
-- decimal strings. The version and the parameters come from one read of the config hash, so the
-- levels are named by the policy they were stepped under.
local config = redis.call('HMGET', KEYS[1], 'version', 'params')
local version, params = config[1] or '', config[2]
if version ~= ARGV[1] or not params then
  return { version }
end
local raw = redis.call('GET', KEYS[2])
if not raw then
  return { version }
end
P = decode_params(params)
layout(P.dims, P.classes)
S = decode_state(raw)
if not S then
  return { version }
end
local out = { version, D, K }
for d = 1, D do
  out[#out + 1] = fmt(S[G + d])
end
for k = 1, K do
  for d = 1, D do
    out[#out + 1] = fmt(S[LVL + at(k, d)])
  end
end
for k = 1, K do
  out[#out + 1] = S[N + k]
end
for k = 1, K do
  for d = 1, D do
    out[#out + 1] = fmt(S[USE + at(k, d)])
  end
end
out[#out + 1] = fmt(S[LAST])
for k = 1, K do
  local head = KEYS[2 + k] and redis.call('LINDEX', KEYS[2 + k], 0)
  if head then
    out[#out + 1] = string.match(head, '|(.*)$')
  else
    out[#out + 1] = '-1'
  end
end
return out
