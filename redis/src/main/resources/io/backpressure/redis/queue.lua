-- A read-only view of one L3 queue as of its last step (InMemoryGate.queueState). Runs after
-- nested_buckets.lua (prepended by the client), whose load_queue reads the record as a step does.
--
-- KEYS: 1 config, 3 queues (see nested_buckets.lua; KEYS[2] is unused and may be anything)
-- ARGV: 1 the version of the policy the client named the class by ('' = it knows none), 2 the
--       queue's field, "<class index from 0>:<tenant>"
-- Returns the live version first ('' when the target has no policy), and only it when that is not
-- ARGV[1] (the client reads the policy again and asks again) or when the queue is not active; else
-- then {level, capacity, rate, weight, last refill µs} as exact decimal strings.
local config = redis.call('HMGET', KEYS[1], 'version', 'params')
local version, params = config[1] or '', config[2]
if version ~= ARGV[1] or not params then
  return { version }
end
P = decode_params(params)
layout(P.dims, P.classes)
local q = load_queue(ARGV[2])
if not q then
  return { version }
end
return { version, fmt(q.lvl), fmt(q.cap), fmt(q.rate), fmt(q.w), fmt(q.last) }
