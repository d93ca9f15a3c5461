-- Provider feedback: io.backpressure.core.spi.EffectiveCaps, transcribed for Redis, as one
-- atomic step per answer. The essay at the top of EffectiveCaps.java explains the rule and maps its
-- Java names to the ones used here; every function below mirrors the Java method of the same name
-- with its arithmetic in the same order. It runs after nested_buckets.lua (prepended by the
-- client), whose decode_params and encode_params alone know the order of the parameters.
--
-- The seam to admission: admit.lua and release.lua decide with the packed numbers in the config
-- hash's 'params' field, read at every decision. This script keeps a copy of the numbers apply.lua
-- wrote for the configured caps C_d ('fb_base', tagged with the policy version it belongs to in
-- 'fb_version') and writes 'params' with the effective caps E_d in their place: the refill rate,
-- the burst and the largest cost in proportion, and the safe window's allowance. While a recovery
-- ramp runs it also writes 'fb_ramp' = {start, end (µs), fraction}, which every admission applies
-- at its own time (follow_ramp in nested_buckets.lua); it is removed once the ramp has ended. The policy JSON, and so C_d, is never touched, and the version stays, so no client
-- reloads. After a policy write, 'params' holds C_d again until the next answer is reported.
--
-- It also writes 'fb_pause' and 'fb_stop' (µs), the instants before which admit.lua defers, resp.
-- refuses, every call (EffectiveCaps.pausedUntil, stoppedUntil).
--
-- KEYS: 1 config hash, 2 feedback state (string, cmsgpack: the fields of the fresh state below)
-- ARGV: 1 'observe' (learn from one answer) or 'read' (writes nothing), 2 the time in µs ('' = the server's TIME),
--       3..12 the feedback policy: enabled (1/0), period (s), decrease, increase, floor, headroom,
--         cooldown (ns), outside_weight, ramp fraction, ramp duration (µs),
--       13 outage_errors, 14 own-usage slot width (µs),
--       15 status, 16 what the answer means ('resumed', or a ProviderSignal.Meaning name), 17 ignored, 18 retry-after (ns, '' = none), 19 own usage given (1/0),
--       then per dimension in the policy's order 6 values: named exhausted (1/0), has rate-limit
--       headers (1/0), limit, remaining, reset (ns) ('' = not sent), own usage; then the index
--       (1-based) of the requests dimension, 0 when there is none; last, the policy version the
--       caller took the feedback parameters from
-- Returns {0} when the target has no policy; {2, live version} when the caller's version is stale
-- (nothing changed); else {1, now, ramp factor, outage (1/0), signals,
-- decreases, adoptions, ramps, ignored, then per dimension: C_d, E_d, applied, limit per second
-- (-1: none), outside estimate, cooldown left (s), spent window left (s)}, numbers as exact decimal
-- strings.

local max, min, floor, huge = math.max, math.min, math.floor, math.huge
local SLOTS = 20
local OUTSIDE_ENGAGE = 0.1
local OUTSIDE_RELEASE = 0.05
local MIN_ELAPSED = 0.1
-- EffectiveCaps.MAX_HOLD, STOP_HOLD and MAX_STOP_HOLD, in ns.
local MAX_HOLD = 600e9
local STOP_HOLD = 600e9
local MAX_STOP_HOLD = 90000e9
-- Java's Long.MIN_VALUE for "never"; far enough back for any comparison with now.
local NEVER = -9223372036854775808

local function fmt(x)
  return string.format('%.17g', x)
end

local function current_time(argument)
  if argument ~= '' then
    return tonumber(argument)
  end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

local cfg = redis.call('HMGET', KEYS[1], 'version', 'params', 'fb_version', 'fb_base', 'layout', 'fb_ramp', 'fb_spent')
if not cfg[1] then
  return { 0 }
end
if cfg[1] ~= ARGV[#ARGV] then
  -- The caller's feedback parameters belong to an older policy: it reloads and asks again.
  return { 2, cfg[1] }
end
-- When apply.lua has written a new policy since, its params are the configured ones.
local base_raw = cfg[4]
local new_base = cfg[3] ~= cfg[1] or not base_raw
if new_base then
  base_raw = cfg[2]
end
-- The configured parameters, decoded by nested_buckets.lua (prepended by the client), which alone
-- knows their order.
local base = decode_params(base_raw)
local D = base.dims
local C = {}
for d = 1, D do
  C[d] = base.rate[d]
end

local F = {
  enabled = ARGV[3] == '1', period = tonumber(ARGV[4]), decrease = tonumber(ARGV[5]),
  increase = tonumber(ARGV[6]), floor = tonumber(ARGV[7]), headroom = tonumber(ARGV[8]),
  cooldown = tonumber(ARGV[9]), outside_weight = tonumber(ARGV[10]), ramp_fraction = tonumber(ARGV[11]),
  ramp_micros = tonumber(ARGV[12]), outage_errors = tonumber(ARGV[13]), width = tonumber(ARGV[14]),
}
local now = current_time(ARGV[2])

-- The state, fresh (EffectiveCaps' constructor) or as stored; a layout change (or a state written
-- before the dead band's out_on or the spent window's spent_from) starts it afresh.
local st
local raw = redis.call('GET', KEYS[2])
if raw then
  st = cmsgpack.unpack(raw)
  if st.layout ~= cfg[5] or st.D ~= D or not st.out_on or not st.spent_from then
    st = nil
  end
end
if not st then
  st = { layout = cfg[5], D = D, a = {}, a_at = {}, cool = {}, spent = {}, spent_from = {}, lim = {}, out = {},
         out_on = {}, own = {},
         own_slot = {},
         ramp_start = 0, ramp_end = NEVER, errors = 0, outage = 0,
         signals = 0, decreases = 0, adoptions = 0, ramps = 0, ignored = 0 }
  for d = 1, D do
    st.a[d] = -1
    st.a_at[d] = 0
    st.cool[d] = NEVER
    st.spent[d] = NEVER
    st.spent_from[d] = NEVER
    st.lim[d] = -1
    st.out[d] = 0
    st.out_on[d] = 0
  end
  for i = 1, SLOTS do
    st.own_slot[i] = NEVER
    for d = 1, D do
      st.own[(d - 1) * SLOTS + i] = 0
    end
  end
end
-- EffectiveCaps.reconfigure: a new period (so a new slot width) forgets the own usage counted.
if st.width ~= F.width then
  for i = 1, SLOTS do
    st.own_slot[i] = NEVER
  end
  st.width = F.width
end
-- A (st.a) is stored as -1 for "no bound" (Java's +Infinity), so that cmsgpack never sees an infinity.
local A = {}
for d = 1, D do
  A[d] = st.a[d] < 0 and huge or st.a[d]
end

-- EffectiveCaps.aimdNow
local function aimd_now(d, t)
  local from = max(st.a_at[d], st.cool[d])
  if t <= from or A[d] == huge then
    return A[d]
  end
  local grown = A[d] + F.increase * C[d] * (t - from) / 1e6
  if grown >= C[d] then
    return huge
  end
  return grown
end

-- EffectiveCaps.effective
local function effective(d, t)
  local c = C[d]
  if not F.enabled then
    return c
  end
  local e = min(c, aimd_now(d, t))
  local lim = st.lim[d]
  local lower = c
  if lim >= 0 and lim < c then
    e = min(e, (1 - F.headroom) * lim)
    lower = lim
  end
  local o = st.out[d]
  if st.out_on[d] == 1 and o > 0 then
    e = min(e, lower - (1 + F.headroom) * o)
  end
  return max(F.floor * c, e)
end

-- EffectiveCaps.rampMultiplier
local function ramp_multiplier(t)
  if not F.enabled or t >= st.ramp_end then
    return 1
  end
  local f = F.ramp_fraction
  return f + (1 - f) * (t - st.ramp_start) / (st.ramp_end - st.ramp_start)
end

-- EffectiveCaps.settle
local function settle(d, t)
  if t > st.a_at[d] and t >= st.cool[d] then
    A[d] = aimd_now(d, t)
    st.a_at[d] = t
  end
end

local function start_ramp(t)
  st.ramp_start = t
  st.ramp_end = t + max(1, F.ramp_micros)
  st.ramps = st.ramps + 1
end

-- EffectiveCaps.count
local function count(t, amounts)
  local slot = floor(t / F.width)
  local i = slot % SLOTS + 1
  if st.own_slot[i] ~= slot then
    st.own_slot[i] = slot
    for d = 1, D do
      st.own[(d - 1) * SLOTS + i] = 0
    end
  end
  for d = 1, D do
    st.own[(d - 1) * SLOTS + i] = st.own[(d - 1) * SLOTS + i] + amounts[d]
  end
end

-- EffectiveCaps.ownSince
local function own_since(d, start, t)
  local width = F.width
  local current = floor(t / width)
  local sum = 0
  for i = 1, SLOTS do
    local slot = st.own_slot[i]
    if slot ~= NEVER and slot > current - SLOTS and slot <= current then
      local b = slot * width
      local e = b + width
      if e > start then
        local amount = st.own[(d - 1) * SLOTS + i]
        if b >= start then
          sum = sum + amount
        else
          sum = sum + amount * (e - start) / width
        end
      end
    end
  end
  return sum
end

-- EffectiveCaps.adopt
local function adopt(d, t, limit, remaining, reset)
  local period = F.period
  if limit then
    local rate = limit / period
    if rate < C[d] and rate ~= st.lim[d] then
      st.adoptions = st.adoptions + 1
    end
    st.lim[d] = rate
  end
  if not limit or not remaining or not reset then
    return
  end
  local elapsed = period - min(period, reset / 1e9)
  if elapsed < MIN_ELAPSED * period then
    return
  end
  local used = limit - remaining
  local mine = own_since(d, t - floor(elapsed * 1e6), t)
  local sample = (used - mine) / elapsed
  local weight = F.outside_weight * elapsed / period
  st.out[d] = st.out[d] + weight * (sample - st.out[d])
  local lower = C[d]
  if st.lim[d] >= 0 then
    lower = min(C[d], st.lim[d])
  end
  local threshold = OUTSIDE_ENGAGE
  if st.out_on[d] == 1 then
    threshold = OUTSIDE_RELEASE
  end
  st.out_on[d] = st.out[d] > threshold * lower and 1 or 0
end

-- EffectiveCaps.decrease
local function decrease(d, t, explained, reset, retry_after)
  if t < st.cool[d] then
    return
  end
  if not explained then
    A[d] = max(F.floor * C[d], F.decrease * effective(d, t))
    st.a_at[d] = t
    st.decreases = st.decreases + 1
  end
  local told
  if reset and reset ~= 0 then
    told = reset
  elseif retry_after and retry_after ~= 0 then
    told = retry_after
  end
  local hold = told or F.cooldown
  st.cool[d] = t + max(1, floor(min(hold, MAX_HOLD) / 1000))
  if told then
    st.spent[d] = st.cool[d]
    st.spent_from[d] = t
  end
end

-- EffectiveCaps.until
local function until_time(t, wait, fallback, most)
  local h = fallback
  if wait and wait ~= 0 then
    h = wait
  end
  return t + max(1, floor(min(h, most) / 1000))
end

-- EffectiveCaps.hold
local function hold(d, t, wait, fallback, most)
  st.spent[d] = max(st.spent[d], until_time(t, wait, fallback, most))
  st.spent_from[d] = t
end

-- EffectiveCaps.observe
local function observe(t)
  if not F.enabled then
    return false
  end
  st.signals = st.signals + 1
  st.ignored = st.ignored + tonumber(ARGV[17])
  for d = 1, D do
    settle(d, t)
  end
  local meaning = ARGV[16]
  if meaning == 'resumed' then
    start_ramp(t)
    return true
  end
  if meaning == 'PROVIDER_ERROR' then
    st.errors = st.errors + 1
    if st.errors >= F.outage_errors then
      st.outage = 1
    end
    return true
  end
  st.errors = 0
  if st.outage == 1 then
    st.outage = 0
    start_ramp(t)
  end
  local at = 19
  if ARGV[19] == '1' then
    local amounts = {}
    for d = 1, D do
      amounts[d] = tonumber(ARGV[at + 6 * d])
    end
    count(t, amounts)
  end
  local before = {}
  local named = false
  for d = 1, D do
    local i = at + 6 * (d - 1)
    before[d] = effective(d, t)
    if ARGV[i + 2] == '1' then
      adopt(d, t, tonumber(ARGV[i + 3]), tonumber(ARGV[i + 4]), tonumber(ARGV[i + 5]))
    end
    named = named or ARGV[i + 1] == '1'
  end
  local retry_after = tonumber(ARGV[18])
  if meaning == 'SLOW_DOWN' then
    for d = 1, D do
      local i = at + 6 * (d - 1)
      if not named or ARGV[i + 1] == '1' then
        local reset
        if ARGV[i + 2] == '1' then
          reset = tonumber(ARGV[i + 5])
        end
        if st.out[d] > 0 then
          st.out_on[d] = 1
        end
        decrease(d, t, effective(d, t) < before[d], reset, retry_after)
      end
    end
  elseif meaning == 'OVERLOADED' then
    for d = 1, D do
      hold(d, t, retry_after, F.cooldown, MAX_HOLD)
    end
    start_ramp(t)
  elseif meaning == 'STOP_UNTIL_RESET' then
    for d = 1, D do
      if not named or ARGV[at + 6 * (d - 1) + 1] == '1' then
        hold(d, t, retry_after, STOP_HOLD, MAX_STOP_HOLD)
      end
    end
    st.stop = max(st.stop or NEVER, until_time(t, retry_after, STOP_HOLD, MAX_STOP_HOLD))
  end
  if (meaning == 'SLOW_DOWN' or meaning == 'OVERLOADED') and retry_after and retry_after ~= 0 then
    st.pause = max(st.pause or NEVER, until_time(t, retry_after, retry_after, MAX_HOLD))
  end
  return true
end

if ARGV[1] == 'observe' and new_base then
  redis.call('HSET', KEYS[1], 'fb_version', cfg[1], 'fb_base', base_raw)
end
if ARGV[1] == 'observe' and observe(now) then
  for d = 1, D do
    st.a[d] = A[d] == huge and -1 or A[d]
  end
  redis.call('SET', KEYS[2], cmsgpack.pack(st))
  -- EffectiveCaps.pausedUntil and stoppedUntil, which admit.lua reads before the rule decides.
  if st.pause and st.pause > now then
    redis.call('HSET', KEYS[1], 'fb_pause', string.format('%.0f', st.pause))
  end
  if st.stop and st.stop > now then
    redis.call('HSET', KEYS[1], 'fb_stop', string.format('%.0f', st.stop))
  end
end

-- The numbers admission decides with: the configured ones, with E_d in place of C_d, and the ramp.
local m = ramp_multiplier(now)
local reply = { 1, now, fmt(m), st.outage, st.signals, st.decreases, st.adoptions, st.ramps, st.ignored }
-- EffectiveCaps.oneRequestPerWindow: the least rate at which a safe window of `micros` µs holds
-- one request, 1e6 / micros rounded up (one ulp at a time, as Math.nextUp) until the allowance,
-- computed as the rule does and as Policy checks it, is at least one.
local function one_request_per_window(micros)
  local rate = 1e6 / micros
  local nanos = micros * 1000
  while rate * micros / 1e6 < 1 or rate * nanos / 1e9 < 1 do
    local _, e = math.frexp(rate)
    rate = rate + math.ldexp(1, e - 53)
  end
  return rate
end

-- EffectiveCaps.rulePolicy: the cap (and burst, in proportion) the rule decides with; the request
-- count is clamped so that one request always fits: at least one per safe window, a burst of at
-- least one.
if ARGV[1] == 'observe' then
  local v = decode_params(base_raw)
  local period = v.period
  local requests = tonumber(ARGV[#ARGV - 1])
  for d = 1, D do
    local r = effective(d, now)
    if d == requests and period ~= 0 then
      r = max(r, min(C[d], one_request_per_window(period)))
    end
    if r ~= C[d] then
      local burst = base.burst[d] * r / C[d]
      if d == requests then
        burst = max(1, burst)
      end
      v.rate[d] = r
      v.burst[d] = burst
      if period == 0 then
        v.largest[d] = burst
      else
        v.largest[d] = min(burst, r * period / 1e6)
      end
      v.allowance[d] = r * period / 1e6
    end
  end
  local packed = encode_params(v)
  if packed ~= cfg[2] then
    redis.call('HSET', KEYS[1], 'params', packed)
  end
  if m < 1 then
    redis.call('HSET', KEYS[1], 'fb_ramp', cmsgpack.pack({ st.ramp_start, st.ramp_end, F.ramp_fraction }))
  elseif cfg[6] then
    redis.call('HDEL', KEYS[1], 'fb_ramp')
  end
  -- Until its reset, every decision holds L1 of a spent dimension at most what it refilled since
  -- the 429 (hold_spent in nested_buckets.lua): each dimension's until, then each one's from. The
  -- field goes once no dimension is spent any more.
  local spent = false
  local held = {}
  for d = 1, D do
    spent = spent or st.spent[d] > now
    held[d] = st.spent[d]
    held[D + d] = st.spent_from[d]
  end
  if spent then
    redis.call('HSET', KEYS[1], 'fb_spent', cmsgpack.pack(held))
  elseif cfg[7] then
    redis.call('HDEL', KEYS[1], 'fb_spent')
  end
end
for d = 1, D do
  local e = effective(d, now)
  local cooldown = 0
  if st.cool[d] > now then
    cooldown = (st.cool[d] - now) / 1e6
  end
  local spent = 0
  if st.spent[d] > now then
    spent = (st.spent[d] - now) / 1e6
  end
  reply[#reply + 1] = fmt(C[d])
  reply[#reply + 1] = fmt(e)
  reply[#reply + 1] = fmt(e * m)
  reply[#reply + 1] = fmt(st.lim[d])
  reply[#reply + 1] = fmt(max(0, st.out[d]))
  reply[#reply + 1] = fmt(cooldown)
  reply[#reply + 1] = fmt(spent)
end
return reply
