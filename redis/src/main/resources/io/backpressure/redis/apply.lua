-- Writes a target's policy, atomically: the JSON the clients read back, and the numbers the admission
-- and release scripts use (packed once here, unpacked at every decision). Validation happens in the
-- client, which only writes policies it could build. Runs after nested_buckets.lua (prepended by the
-- client), for the state layout and the parameters' order.
--
-- KEYS: 1 config hash, 2 state, 3 queues, 4 seen, 5 window (see nested_buckets.lua), 6 resting (see
--       fair_rule.lua), 7 the audit stream when the write is audited
-- ARGV: 1 the version the writer expects ('' = any, '-' = only if the target has no policy yet, '!' =
--       only if it has none, written back by a gate that found it lost: the state went with it, so
--       the next step starts with empty buckets, see guards.lua),
--       2 a random suffix that makes the new version unique, 3 policy JSON, 4 layout (the dimension
--       and class names), 5 the rule the writer's gate decides with ('buckets': nested_buckets.lua,
--       'fair': fair_rule.lua; '' = the writer gates nothing, the stored rule stays), then when
--       audited (KEYS[7]) 6 the most entries the trail keeps and 7..12 the entry's at, actor, action,
--       field, before and after, then the parameters in PolicyCodec.params order (see decode_params
--       in nested_buckets.lua)
-- Returns {1, new version} written, and audited in the same step; {0, live version or ''} the
-- expectation failed (nothing written, nothing audited).
--
-- When the dimension or class names change, the derived state (L1, L2, L3, sums, tails) no longer
-- fits: it is dropped and the next admission starts cold (full buckets), and the generation
-- increments so that grants and bookings of the old layout are ignored. The same when the rule
-- changes: the config hash records which rule the state is laid out for ('rule', absent =
-- 'buckets', as every target was before the rebuilt rule), so that the readers (levels.lua,
-- fair_levels.lua) read it by its own layout, and a state is never read by the other rule. Changing
-- only caps and weights keeps the state: the next step refills at the new rates and clamps to the
-- new capacities.
local current = redis.call('HMGET', KEYS[1], 'version', 'layout', 'generation', 'rule')
local expected = ARGV[1]
local restoring = expected == '!'
if restoring then
  expected = '-'
end
if (expected == '-' and current[1]) or (expected ~= '' and expected ~= '-' and expected ~= current[1]) then
  return { 0, current[1] or '' }
end

-- The parameters as the scripts read them (decode_params in nested_buckets.lua, prepended by the
-- client): the numbers as given, then the struct formats of the state, of one queue, of the safe
-- window's meta record and of one window entry, sized by the state layout (layout,
-- struct_formats), which depends on the dimensions (D) and classes (K) only.
local audited = KEYS[7] ~= nil
local params = {}
for i = audited and 13 or 6, #ARGV do
  params[#params + 1] = tonumber(ARGV[i])
end
layout(params[1], params[2])
local state_format, queue_format, meta_format, entry_format = struct_formats()
params[#params + 1] = state_format
params[#params + 1] = queue_format
params[#params + 1] = meta_format
params[#params + 1] = entry_format
local packed = cmsgpack.pack(params)
local period = decode_params(packed).period

-- Versions read "<counter>-<suffix>": the counter for people, the suffix so that a version is never
-- reused, not even after the server lost its data and a client wrote the policy again.
-- The audit entry first: a script's writes are not undone when a later command fails, so the write
-- that may fail on its key (a stream expected, or memory refused to the first write) comes before
-- the policy changes.
if audited then
  redis.call('XADD', KEYS[7], 'MAXLEN', '~', ARGV[6], '*', 'at', ARGV[7], 'actor', ARGV[8],
      'action', ARGV[9], 'field', ARGV[10], 'before', ARGV[11], 'after', ARGV[12])
end

local version = ((tonumber(string.match(current[1] or '', '^%d+')) or 0) + 1) .. '-' .. ARGV[2]
local generation = tonumber(current[3]) or 0
local stored_rule = current[4] or 'buckets'
local rule = ARGV[5] ~= '' and ARGV[5] or stored_rule
if current[2] ~= ARGV[4] or rule ~= stored_rule then
  generation = generation + 1
  redis.call('UNLINK', KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6])
  redis.call('HDEL', KEYS[1], 'started', 'earliest')
elseif period == 0 then
  -- No safe window any more: its record goes (a later one starts empty, as in NestedBuckets).
  redis.call('UNLINK', KEYS[5])
end
redis.call('HSET', KEYS[1], 'version', version, 'layout', ARGV[4], 'generation', generation,
    'params', packed, 'policy', ARGV[3], 'rule', rule)
if restoring then
  redis.call('HSET', KEYS[1], 'started', '1')
end
return { 1, version }
