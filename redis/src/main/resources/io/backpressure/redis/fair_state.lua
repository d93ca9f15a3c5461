-- A read-only view of the rebuilt rule's whole state, named as FairRuleSchema's read-out names it
-- (FairRuleSchema.key): for the differential test and inspection. Runs after nested_buckets.lua,
-- the schema and fair_rule.lua (prepended by the client).
--
-- KEYS: 1 config, 2 state, 3 queues, 4 seen, 5 window, 6 resting (see fair_rule.lua)
-- Returns {} before the first step; else {name, value, name, value, ...}, every value an exact
-- decimal string ('inf', '-inf').

local params = call('HGET', KEYS[1], 'params')
local raw = call('GET', KEYS[2])
if not params or not raw then
  return {}
end
P = decode_params(params)
layout(P.dims, P.classes)
lay_out()
S = { struct_unpack(doubles(STATE_SIZE), raw) }
local out = {}
local function put(name, x)
  out[#out + 1] = name
  out[#out + 1] = string.format('%.17g', x)
end
for _, f in ipairs(SCHEMA.fields) do
  local name, per, start = f[1], f[2], FIELD[f[1]]
  if per == 'global' then
    put(name, S[start + 1])
  elseif per == 'dimension' then
    for d = 1, D do
      put(name .. '[' .. (d - 1) .. ']', S[start + d])
    end
  elseif per == 'class' then
    for k = 1, K do
      put(name .. '[' .. (k - 1) .. ']', S[start + k])
    end
  elseif per == 'class_dimension' then
    for k = 1, K do
      for d = 1, D do
        put(name .. '[' .. (k - 1) .. '][' .. (d - 1) .. ']', S[start + at(k, d)])
      end
    end
  end
end
local queues = call('HGETALL', KEYS[3])
for i = 1, #queues, 2 do
  local v = { struct_unpack(doubles(#QUEUE_FIELDS), queues[i + 1]) }
  for j, name in ipairs(QUEUE_FIELDS) do
    put('queue[' .. queues[i] .. '].' .. name, v[j])
  end
end
local meta = call('HGET', KEYS[5], 'm')
if meta and P.period > 0 then
  local v = { struct_unpack(doubles(5 * D), meta) }
  for d = 1, D do
    for id = v[d], v[D + d] - 1 do
      local at_, amount = struct_unpack('<dd', call('HGET', KEYS[5], 'e' .. d .. ':' .. fmt(id)))
      put('window[' .. (d - 1) .. '][' .. (id - v[d]) .. '].at', at_)
      put('window[' .. (d - 1) .. '][' .. (id - v[d]) .. '].amount', amount)
    end
  end
  for d = 1, D do
    local i = 0
    for id = v[2 * D + d], v[3 * D + d] - 1 do
      local at_, amount, debit, sent = struct_unpack('<dddd', call('HGET', KEYS[5], 'h' .. d .. ':' .. fmt(id)))
      if sent == 0 then
        put('held[' .. (d - 1) .. '][' .. i .. '].at', at_)
        put('held[' .. (d - 1) .. '][' .. i .. '].amount', amount)
        put('held[' .. (d - 1) .. '][' .. i .. '].debit', debit)
        i = i + 1
      end
    end
  end
end
return out
