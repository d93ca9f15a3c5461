-- A read-only view of one L3 queue as of its last step (InMemoryGate.queueState). Runs after
-- nested_buckets.lua (prepended by the client), whose load_queue reads the record as a step does.
--
-- KEYS: 1 config, 3 queues (see nested_buckets.lua; KEYS[2] is unused and may be anything)
-- ARGV: 1 the queue's field, "<class index from 0>:<tenant>"
-- Returns {} when the queue is not active; else {level, capacity, rate, weight, last refill µs} as
-- exact decimal strings.
local params = redis.call('HGET', KEYS[1], 'params')
if not params then
  return {}
end
P = decode_params(params)
layout(P.dims, P.classes)
local q = load_queue(ARGV[1])
if not q then
  return {}
end
return { fmt(q.lvl), fmt(q.cap), fmt(q.rate), fmt(q.w), fmt(q.last) }
