-- The limits beyond the per-second caps (io.backpressure.core.Limits): calendar caps, quotas and
-- concurrency leases, checked before the admission rule decides and debited when it admits, in the
-- same script. The twin of LimitLedger.java; LimitPlan.java has the rule. Functions only: the
-- client puts this file before admit.lua and release.lua, which call them.
--
-- The client sends each call's plan (LimitPlan), so this file needs no policy, price or time zone:
-- Redis's Lua has no time zone database, and the client computes the calendar windows with
-- java.time and sends four boundaries per period around its own clock; the window that holds the
-- server's time is picked here.
--
-- Keys (the last three of the step's KEYS when the client sends a plan):
--   limits   hash: counter field -> "start used held" (µs, and the counter's units, '%.17g'),
--            'expired' -> leases expired unreleased, and each concurrency scope holding leases
--            ('in:k:<class>', 'in:t:<tenant>') -> how many, 'adaptive' -> "limit last_decrease
--            slow_seen latency" (µs; Limits.Adaptive: the adaptive limit as last stored, when it
--            last decreased, the expiry of the latest lease counted slow while in flight, and the
--            latency last measured; a value of two or three fields, as an older client wrote it,
--            has none counted and none measured)
--   lg:<id>  string: the admitted grant's lease (its member of leases, or ''), counters and
--            admission time (µs), for its release (cmsgpack), PX = grant TTL
--   leases   zset: cmsgpack({grant key, class scope, tenant scope}) -> lease expiry (µs)
-- Plan ARGV (after the step's own, from index L): L+1 max in flight (0: none), L+2 lease TTL µs,
--   L+3..L+6 the day's boundaries, L+7..L+10 the month's, L+11 the number of counters n, then per
--   counter 9 values: field, period (1 day, 2 month), limit, dimension (from 1), input price per
--   million ('' when the counter counts its dimension), output price, estimate, cost, hold; then,
--   with a concurrency limit, the class scope's field and limit (0: none) and the tenant scope's,
--   then the adaptive limit's min (0: a fixed limit), max and latency target in µs, and the call's
--   deadline in µs from now (-1: none).

local LIMIT_FIELDS = 9
local LIMITS_POLL_MICROS = 250000

-- The window [start, end) of period p (1 day, 2 month) that holds now, from the plan's boundaries.
local function limit_window(L, p, now)
  local b = L + 2 + (p - 1) * 4
  local b1, b2 = ARGV[b + 2] * 1, ARGV[b + 3] * 1
  if now < b1 then
    return ARGV[b + 1] * 1, b1
  end
  if now >= b2 then
    return b2, ARGV[b + 4] * 1
  end
  return b1, b2
end

-- A counter's stored value: its window start, used and held; zeros when it is of another window.
local function limit_count(limits_key, field, start)
  local raw = call('HGET', limits_key, field)
  if raw then
    local s, u, h = string.match(raw, '^(%S+) (%S+) (%S+)$')
    if s * 1 == start then
      return u * 1, h * 1
    end
  end
  return 0, 0
end

local function limit_store(limits_key, field, start, used, held)
  call('HSET', limits_key, field, fmt(start) .. ' ' .. fmt(used) .. ' ' .. fmt(held))
end

-- LimitLedger.leave: a scope's count one lease lower, the field gone at zero.
local function limits_leave(limits_key, scope)
  if call('HINCRBY', limits_key, scope, -1) <= 0 then
    call('HDEL', limits_key, scope)
  end
end

-- LimitLedger.expireLeases: drops the leases expired at now, out of their scopes, and counts them.
local function limits_expire_leases(limits_key, leases_key, now)
  local gone = call('ZRANGEBYSCORE', leases_key, '-inf', fmt(now))
  if #gone > 0 then
    call('ZREMRANGEBYSCORE', leases_key, '-inf', fmt(now))
    for i = 1, #gone do
      local lease = cmsgpack.unpack(gone[i])
      limits_leave(limits_key, lease[2])
      limits_leave(limits_key, lease[3])
    end
    call('HINCRBY', limits_key, 'expired', #gone)
  end
end

-- The adaptive limit (Limits.Adaptive.current): the stored one within [min, max], min when none is
-- stored; when it last decreased (0: never); the expiry of the latest lease counted slow while in
-- flight (LimitLedger.slowSeen; 0: none); and the latency last measured (LimitLedger.latency, µs;
-- 0: none).
local function adaptive_state(limits_key, min, max)
  local raw = call('HGET', limits_key, 'adaptive')
  local limit, last, seen, latency = 0, 0, 0, 0
  if raw then
    local l, t, v, m = string.match(raw, '^(%S+) (%S+) ?(%S*) ?(%S*)$')
    limit, last = l * 1, t * 1
    if v ~= '' then
      seen = v * 1
    end
    if m ~= '' then
      latency = m * 1
    end
  end
  if limit < min then
    limit = min
  elseif limit > max then
    limit = max
  end
  return limit, last, seen, latency
end

local function adaptive_store(limits_key, limit, last, seen, latency)
  call('HSET', limits_key, 'adaptive',
    fmt(limit) .. ' ' .. fmt(last) .. ' ' .. fmt(seen) .. ' ' .. fmt(latency))
end

-- LimitLedger.decrease (Limits.Adaptive.mayDecrease and decreased): the limit halved, down to
-- min, unless it decreased less than a latency target ago.
local function limits_decrease(limits_key, now, min, max, target)
  local limit, last, seen, latency = adaptive_state(limits_key, min, max)
  if last == 0 or now - last >= target then
    local next = math.floor(limit * 0.5)
    if next < min then
      next = min
    end
    adaptive_store(limits_key, next, now, seen, latency)
  end
end

-- LimitLedger.release's latency sample: the call admitted at admitted and released at now, with
-- in_flight leases held (its own included), is the latency measured; unless it was counted slow in
-- flight already (sample false), it moves the adaptive limit of ARGV a+1..a+3 (min, max, latency
-- target µs): a decrease past the target, else an increase (Limits.Adaptive.increased).
local function limits_adapt(limits_key, a, now, admitted, in_flight, sample)
  local min, max, target = ARGV[a + 1] * 1, ARGV[a + 2] * 1, ARGV[a + 3] * 1
  local limit, last, seen = adaptive_state(limits_key, min, max)
  adaptive_store(limits_key, limit, last, seen, now - admitted)
  if not sample then
    return
  end
  if now - admitted > target then
    limits_decrease(limits_key, now, min, max, target)
    return
  end
  if 2 * in_flight >= limit and limit < max then
    limit = limit + 1
  end
  adaptive_store(limits_key, limit, last, seen, now - admitted)
end

-- LimitLedger.overdue: the oldest lease in force, admitted (its expiry less the lease TTL of ARGV
-- L+2) more than the latency target before now, is a slow sample while still in flight, counted
-- once (slow_seen); the latency measured becomes at least its age, and the adaptive limit of plan
-- ARGV s+5..s+7 (min, max, target) decreases.
local function limits_overdue(L, s, now, limits_key, leases_key)
  local oldest = call('ZRANGE', leases_key, 0, 0, 'WITHSCORES')
  if #oldest == 0 then
    return
  end
  local expiry = oldest[2] * 1
  local min, max, target = ARGV[s + 5] * 1, ARGV[s + 6] * 1, ARGV[s + 7] * 1
  local limit, last, seen, latency = adaptive_state(limits_key, min, max)
  local age = now - (expiry - ARGV[L + 2] * 1)
  if expiry > seen and age > target then
    adaptive_store(limits_key, limit, last, expiry, latency > age and latency or age)
    limits_decrease(limits_key, now, min, max, target)
  end
end

-- LimitLedger.full: whether the target or one of the call's scopes (plan ARGV from s) holds as
-- many leases as its limit allows (the target's: the adaptive limit's, when ARGV s+5 is its min).
local function limits_full(limits_key, leases_key, max_in_flight, s)
  local min = ARGV[s + 5] * 1
  if min > 0 then
    max_in_flight = adaptive_state(limits_key, min, ARGV[s + 6] * 1)
  end
  if call('ZCARD', leases_key) >= max_in_flight then
    return true
  end
  for at = s, s + 2, 2 do
    local limit = ARGV[at + 2] * 1
    if limit > 0 and (tonumber(call('HGET', limits_key, ARGV[at + 1])) or 0) >= limit then
      return true
    end
  end
  return false
end

-- LimitLedger.check: nil when the call may go to the rule; else the step's answer: {5, wait µs,
-- now} deferred by a limit (no booking stored), {6, counter, reset µs, used} rejected until the
-- reset, {7, counter} a cost above the counter's whole limit, {9, wait µs, deadline µs, latency
-- µs} expired: under an adaptive limit, the call's deadline does not cover the latency measured
-- after the wait for its lease, or not at all while another call is in flight
-- (Limits.Adaptive.spare). A counter whose stored window has passed restarts at zero (written at
-- debit).
local function limits_check(L, now, limits_key, leases_key)
  local n = ARGV[L + 11] * 1
  local terminal, terminal_reset, terminal_used = nil, nil, nil
  local wait = 0
  for i = 1, n do
    local a = L + 11 + (i - 1) * LIMIT_FIELDS
    local limit, cost = ARGV[a + 3] * 1, ARGV[a + 8] * 1
    if cost > limit then
      return { 7, i }
    end
    local start, finish = limit_window(L, ARGV[a + 2] * 1, now)
    local used, held = limit_count(limits_key, ARGV[a + 1], start)
    if used + cost > limit then
      if used - held + cost <= limit then
        wait = LIMITS_POLL_MICROS
      elseif not terminal or finish > terminal_reset then
        terminal, terminal_reset, terminal_used = i, finish, used
      end
    end
  end
  if terminal then
    return { 6, terminal, terminal_reset, fmt(terminal_used) }
  end
  local max_in_flight = ARGV[L + 1] * 1
  if max_in_flight > 0 then
    limits_expire_leases(limits_key, leases_key, now)
    local s = L + 11 + n * LIMIT_FIELDS
    local deadline, latency, spare = -1, 0, nil
    if ARGV[s + 5] * 1 > 0 then
      limits_overdue(L, s, now, limits_key, leases_key)
      deadline = ARGV[s + 8] * 1
      local _, _, _, measured = adaptive_state(limits_key, ARGV[s + 5] * 1, ARGV[s + 6] * 1)
      latency = measured
      if deadline >= 0 and latency > 0 then
        spare = deadline - latency
        if spare < 0 and call('ZCARD', leases_key) > 0 then
          return { 9, 0, deadline, latency }
        end
      end
    end
    if limits_full(limits_key, leases_key, max_in_flight, s) then
      local earliest = call('ZRANGE', leases_key, 0, 0, 'WITHSCORES')
      local lease = earliest[2] * 1 - now
      if lease > LIMITS_POLL_MICROS then
        lease = LIMITS_POLL_MICROS
      end
      if spare and lease > spare then
        return { 9, lease, deadline, latency }
      end
      if lease > wait then
        wait = lease
      end
    end
  end
  if wait > 0 then
    return { 5, wait, now }
  end
  return nil
end

-- LimitLedger.debit: the call's cost into every counter, its lease in the target and its scopes,
-- and its lease and counters kept under lg_key for its release, as long as its grant (grant_key)
-- lives.
local function limits_debit(L, now, limits_key, lg_key, leases_key, grant_key)
  local n = ARGV[L + 11] * 1
  local kept = {}
  for i = 1, n do
    local a = L + 11 + (i - 1) * LIMIT_FIELDS
    local field, cost, hold = ARGV[a + 1], ARGV[a + 8] * 1, ARGV[a + 9] * 1
    local start = limit_window(L, ARGV[a + 2] * 1, now)
    local used, held = limit_count(limits_key, field, start)
    limit_store(limits_key, field, start, used + cost, held + hold)
    local pin, pout = -1, -1
    if ARGV[a + 5] ~= '' then
      pin, pout = ARGV[a + 5] * 1, ARGV[a + 6] * 1
    end
    local at = (i - 1) * 8
    kept[at + 1], kept[at + 2], kept[at + 3], kept[at + 4] = field, start, ARGV[a + 4] * 1, pin
    kept[at + 5], kept[at + 6], kept[at + 7], kept[at + 8] = pout, ARGV[a + 7] * 1, cost, hold
  end
  local lease = ''
  if ARGV[L + 1] * 1 > 0 then
    local s = L + 11 + n * LIMIT_FIELDS
    local class_scope, tenant_scope = ARGV[s + 1], ARGV[s + 3]
    lease = cmsgpack.pack({ grant_key, class_scope, tenant_scope })
    call('ZADD', leases_key, fmt(now + ARGV[L + 2] * 1), lease)
    call('HINCRBY', limits_key, class_scope, 1)
    call('HINCRBY', limits_key, tenant_scope, 1)
  end
  call('SET', lg_key, cmsgpack.pack({ lease, kept, now }), 'PX', P.grant_px_text)
end

-- LimitLedger.release: reconciles the released grant's counters with the actual cost per dimension
-- (in the window it was admitted in only) and gives its lease back, out of its scopes; under an
-- adaptive limit (ARGV a+1 its min, > 0) the call's latency to now moves it. The leases expired at
-- now are swept first: a lease past its TTL counts as expired whether or not an admission swept
-- it before. A record of an older client, without its admission time, gives no latency sample.
local function limits_release(actual, limits_key, lg_key, leases_key, now, a)
  local raw = call('GET', lg_key)
  if not raw then
    return
  end
  call('DEL', lg_key)
  local record = cmsgpack.unpack(raw)
  local lease, kept, admitted = record[1], record[2], record[3]
  if lease ~= '' then
    limits_expire_leases(limits_key, leases_key, now)
  end
  local expiry = lease ~= '' and call('ZSCORE', leases_key, lease)
  if expiry then
    local min = ARGV[a + 1] * 1
    if admitted and min > 0 then
      local _, _, seen = adaptive_state(limits_key, min, ARGV[a + 2] * 1)
      -- a lease counted slow while in flight (LimitLedger.overdue) gives no sample at its release,
      -- but its latency is measured
      limits_adapt(limits_key, a, now, admitted, call('ZCARD', leases_key), expiry * 1 > seen)
    end
    call('ZREM', leases_key, lease)
    local scopes = cmsgpack.unpack(lease)
    limits_leave(limits_key, scopes[2])
    limits_leave(limits_key, scopes[3])
  end
  for at = 0, #kept - 1, 8 do
    local field, start, d, pin = kept[at + 1], kept[at + 2], kept[at + 3], kept[at + 4]
    local pout, estimate, cost, hold = kept[at + 5], kept[at + 6], kept[at + 7], kept[at + 8]
    local raw_count = call('HGET', limits_key, field)
    if raw_count then
      local s, u, h = string.match(raw_count, '^(%S+) (%S+) (%S+)$')
      if s * 1 == start then
        -- LimitPlan.Counter.actualCost
        local spent = actual[d]
        if pin >= 0 then
          local input = spent < estimate and spent or estimate
          local output = spent - estimate > 0 and spent - estimate or 0
          spent = (input * pin + output * pout) / 1e6
        end
        local held = h * 1 - hold
        -- never below zero: after a reset the count no longer holds the cost this call corrects
        local used = u * 1 + (spent - cost)
        limit_store(limits_key, field, start, used > 0 and used or 0, held > 0 and held or 0)
      end
    end
  end
end
