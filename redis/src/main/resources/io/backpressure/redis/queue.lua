-- A read-only view of one L3 queue as of its last step (InMemoryGate.queueState).
--
-- KEYS: 1 config, 3 queues (see nested_buckets.lua; KEYS[2] is unused and may be anything)
-- ARGV: 1 the queue's field, "<class index from 0>:<tenant>"
-- Returns {} when the queue is not active; else {level, capacity, rate, weight, last refill µs} as
-- exact decimal strings (pack_queue in nested_buckets.lua lays them out in this order, then the
-- satisfied flag, and the last refill sixth).
local params = redis.call('HGET', KEYS[1], 'params')
local raw = redis.call('HGET', KEYS[3], ARGV[1])
if not params or not raw then
  return {}
end
local p = cmsgpack.unpack(params)
local v = { struct.unpack(p[#p - 2], raw) }
local out = {}
for _, i in ipairs({ 1, 2, 3, 4, 6 }) do
  out[#out + 1] = string.format('%.17g', v[i])
end
return out
