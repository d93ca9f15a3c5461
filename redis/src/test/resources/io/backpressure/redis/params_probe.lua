-- Test only: runs after nested_buckets.lua and answers the parameters of KEYS[1] as decode_params
-- reads them, and the sizes layout computes, as exact decimal strings: dims, classes, then per
-- dimension rate, burst, largest and allowance, per class its weight, then horizon,
-- horizon_micros, idle, grant_ttl, grant_px, period, strict (1/0), and the state and queue sizes
-- with the byte lengths of the four struct formats apply.lua stored.
P = decode_params(redis.call('HGET', KEYS[1], 'params'))
layout(P.dims, P.classes)
local out = { fmt(P.dims), fmt(P.classes) }
for d = 1, P.dims do
  out[#out + 1] = fmt(P.rate[d])
  out[#out + 1] = fmt(P.burst[d])
  out[#out + 1] = fmt(P.largest[d])
  out[#out + 1] = fmt(P.allowance[d])
end
for k = 1, P.classes do
  out[#out + 1] = fmt(P.weight[k])
end
for _, v in ipairs({ P.horizon, P.horizon_micros, P.idle, P.grant_ttl, P.grant_px, P.period }) do
  out[#out + 1] = fmt(v)
end
out[#out + 1] = P.strict and '1' or '0'
out[#out + 1] = fmt(STATE_SIZE)
out[#out + 1] = fmt(QUEUE_SIZE)
for _, f in ipairs({ P.state_format, P.queue_format, P.meta_format, P.entry_format }) do
  out[#out + 1] = fmt(#f - 1)
end
return out
