-- A read-only view of a target's buckets as of its last step, for metrics and the admin command.
--
-- KEYS: 1 config, 2 state (see nested_buckets.lua for both layouts)
-- Returns {} before the first step (or when the target has no policy); else {dims, classes, L1
-- level per dimension, L2 level per class and dimension (class-major), active queues per class,
-- class usage average (admitted units per second) per class and dimension (class-major)}, numbers
-- other than counts as exact decimal strings.
local params = redis.call('HGET', KEYS[1], 'params')
local raw = redis.call('GET', KEYS[2])
if not params or not raw then
  return {}
end
local p = cmsgpack.unpack(params)
local D, K = p[1], p[2]
local S = { struct.unpack(p[#p - 3], raw) }
local G = 2
local LVL = G + 2 * D
local USE = LVL + K * D
local N = LVL + 6 * K * D
local out = { D, K }
for d = 1, D do
  out[#out + 1] = string.format('%.17g', S[G + d])
end
for k = 1, K do
  for d = 1, D do
    out[#out + 1] = string.format('%.17g', S[LVL + (k - 1) * D + d])
  end
end
for k = 1, K do
  out[#out + 1] = S[N + k]
end
for k = 1, K do
  for d = 1, D do
    out[#out + 1] = string.format('%.17g', S[USE + (k - 1) * D + d])
  end
end
return out
