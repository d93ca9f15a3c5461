-- One admission attempt: NestedBuckets.admit plus the grant and booking bookkeeping of
-- InMemoryGate.admit, as one atomic step. Runs after nested_buckets.lua (prepended by the client).
--
-- KEYS: 1 config, 2 state, 3 queues, 4 seen, 5 window (see nested_buckets.lua), 6 the grant key for
--       this call's id, 7 the booking key for this call's id, 8 the waiting line of the call's class,
--       9 the booking key the caller presents (only when it presents one: a key fewer to pass)
-- ARGV: 1 the policy version the caller validated the request against, 2 the time in µs ('' = the
--       server's TIME), 3 tenant, 4 class index (0 = highest), 5 tenant weight w_t, 6 '1' when a
--       booking is presented, 7 '1' in reservation mode, 8 the call's wait limit in µs (-1: none;
--       RequestCheck.maxWait), then the estimate per dimension (in the policy's order) and, in
--       reservation mode, what to reserve per dimension (RequestCheck.reserve), then the call's
--       limit plan when the target has limits (limits.lua; its three keys then end KEYS)
-- Returns {0, now, debit[d]...} admitted (grant stored under KEYS[6], debit as an integer when it is a
-- whole number, else as its exact decimal);
-- {1, Δ µs, now, 0|1} deferred, booking stored under KEYS[7] (0) or kept under KEYS[9] (1);
-- {3, turn µs, now} expired (nothing debited, a presented booking deleted);
-- {2, live version} the caller's policy version is stale (nothing changed);
-- {5, Δ µs, now} deferred by a limit or by the provider's retry-after, {6, counter, reset µs, used}
-- or {7, counter} rejected by a limit (limits.lua), {8, reset µs, now} refused while the provider's
-- stop lasts, {9, wait µs, deadline µs, latency µs} expired because the call's deadline does not
-- cover the adaptive limit's measured latency (limits.lua) (nothing debited, no booking stored).

-- NestedBuckets.touch: finds or creates the queue (q is what load_queue found), refills it, and
-- replaces its contribution to the class sums (D_k,d, U_k,d) with one based on this call's paced
-- cost and its current level. Returns the queue and the cost's dominant share.
local function touch(now, field, k, weight, cost, q, paying)
  local fresh = not q
  if not q then
    q = { k = k, lvl = huge, cap = huge, rate = 0, w = 0, sat = false, last = now, seen = 0, seq = 0,
          deferred = NEVER, con = {}, use = {}, corr = {}, out = 0, waiting = NEVER, rel = 0,
          lined = NEVER }
    for d = 1, D do
      q.con[d] = 0
      q.use[d] = 0
      q.corr[d] = 0
    end
    S[N + k] = S[N + k] + 1
  else
    refill(now, q)
    withdraw(q)
  end
  local seen_before = not fresh and q.seen
  if now > q.seen then
    q.seen = now
  end
  S[SEQ] = S[SEQ] + 1
  q.seq = S[SEQ]
  index_seen(field, q.seen, seen_before)

  q.w = weight
  local sigma = share(cost)
  if sigma > 0 then
    local con = q.con
    for d = 1, D do
      con[d] = weight * cost[d] / sigma
    end
  end
  -- q.sat (NestedBuckets.Queue.capped): banks at least half its capacity, so the class sums count
  -- its use, not its demand, unless a call of it waits for its turn (q.waiting). q.within
  -- (Queue.satisfied): would still bank half its capacity once this call has paid, its own share has
  -- not deferred it within the horizon, and it is not paced by the lines (deferred by one within the
  -- horizon while it used at least half its equal split).
  q.sat = fresh or (q.lvl >= SATISFIED_FRACTION * q.cap and now >= q.waiting)
  contribute(q)
  local owed = 0
  if paying then
    owed = sigma
  end
  -- served: uses at least half its equal split of the class.
  local split = equal_split_rate(k)
  local served = dominant_use(q) >= SATISFIED_FRACTION * weight * split
  local paced_by_lines = now - q.lined <= P.horizon_micros and served
  q.within = fresh or (q.lvl - owed >= SATISFIED_FRACTION * q.cap and now - q.deferred > P.horizon_micros
                       and not paced_by_lines)
  q.rate = weight * equalisation_rate(k, split)
  -- max(sigma, rate · H) and min(lvl, cap), written out as math.max and math.min compare.
  local cap = q.rate * P.horizon
  if not (cap > sigma) then
    cap = sigma
  end
  q.cap = cap
  if cap < q.lvl then
    q.lvl = cap
  end
  return q, sigma
end

-- The per-dimension records admit fills afresh at every call (see the tables of the main body below):
-- the paced cost, when each short shared bucket holds enough, each dimension's slot in its class's
-- line, whether the call lines up behind the light tail, and when it would be back behind its
-- class's earlier promises.
local PACED, GLOBAL_SLOT, CLASS_SLOT, LIGHT_SLOT, KEPT_SLOT = {}, {}, {}, {}, {}

-- NestedBuckets.usesShare: whether the class at offset base already uses at least its nominal share of
-- a dimension whose shared buckets (L1 or the safe window) are short at now for the call being deferred.
local function uses_share(base, now)
  for d = 1, D do
    if GLOBAL_SLOT[d] > now and nominal[base + d] > 0 and S[USE + base + d] >= nominal[base + d] then
      return true
    end
  end
  return false
end

-- NestedBuckets.admit: paces the estimate by the queue's correction (in reservation mode: by the
-- reservation, which L1 and L2 debit too), pays the call's share into L3
-- at its first attempt (the debt is the queue's line), then admits iff every L1 and L2 bucket (and
-- the safe window) holds the cost and the call's turn has come. Returns Δ in µs, 0 when admitted and
-- debited (booking.debit is what was debited, booking.entry the window entry), or −(its turn) when
-- the turn comes after max_wait µs (max_wait < 0: no limit); an expired call pays nothing.

local function admit(now, field, k, weight, estimate, reserve, booking, max_wait)
  local q = load_queue(field)
  -- The state and its offsets as locals (each use of an upvalue costs one more instruction).
  local S, G, LVL, USE, SU, CT, LT, OD = S, G, LVL, USE, SU, CT, LT, OD
  local paced = PACED
  -- at(k, d) is base + d.
  local base = (k - 1) * D
  local rate, largest = P.rate, P.largest
  -- (Here and below, min(a, b) and max(a, b) on the per-dimension path are written out as math.min
  -- and math.max compare: b when b < a, resp. b > a, else a.)
  -- NestedBuckets.correction: what a call is charged beyond its estimate is its class's correction
  -- until its queue (q, nil when not active yet) has seen a release of its own, then the queue's.
  local corrections, at_correction = S, CC + base
  if q and q.rel > 0 then
    corrections, at_correction = q.corr, 0
  end
  for d = 1, D do
    if reserve then
      paced[d] = reserve[d]
    else
      local corrected = estimate[d] + corrections[at_correction + d]
      if corrected < largest[d] then
        paced[d] = corrected
      else
        paced[d] = largest[d]
      end
    end
  end
  local cost = paced
  booking.debit = cost
  local sigma
  q, sigma = touch(now, field, k, weight, paced, q, not booking.paid)
  local fresh = not booking.paid
  -- An overdue call takes its promise back first: it owes no overdue call anything.
  local was_overdue = booking.overdue
  if was_overdue then
    for d = 1, D do
      local kd = base + d
      S[OD + kd] = max(0, S[OD + kd] - paced[d])
    end
    booking.overdue = false
  end
  local turn
  if fresh then
    q.lvl = q.lvl - sigma
    if q.lvl >= -EPSILON then
      turn = now
    else
      turn = turn_after(now, -q.lvl, sigma, q.rate)
    end
  else
    q.lvl = q.lvl - (sigma - booking.share)
    turn = booking.ready
  end

  -- When each short bucket (L1, the safe window, L2) holds enough at its current rate.
  local global_slot = GLOBAL_SLOT
  local class_slot = CLASS_SLOT
  local kept_slot = KEPT_SLOT
  local class_short = false
  local global_short = false
  -- A lined call back at or after its slot that may keep its place (see overdue) waits behind
  -- the overdue calls of its class promised before it, if its queue uses its share.
  local keeps = booking.lined and keeps_place(booking, k, q)
  local keeping = keeps and not fresh and now >= booking.ready
  local behind_overdue = keeping and not q.within
  for d = 1, D do
    local kd = base + d
    global_slot[d] = now
    class_slot[d] = now
    kept_slot[d] = now
    if cost[d] > 0 then
      -- A borrowing call is paced: no burst from L1, and the last room in the safe window only
      -- when room for one more call comes free soon (NestedBuckets, "paced").
      local need = cost[d]
      local window_need = cost[d]
      local room = 0
      if not q.within then
        if borrowing[kd] then
          need = max(cost[d], P.burst[d] - BORROWER_BURST_CALLS * cost[d])
          room = headroom(cost[d], d)
        end
        if not was_overdue then
          local owed = overdue_of_others(k, d)
          need = need + owed
          window_need = window_need + owed
        end
      end
      -- (shared_slot is now while L1 holds need and there is no safe window.)
      if W or need > S[G + d] + EPSILON then
        global_slot[d] = shared_slot(now, d, need, window_need, room)
      end
      global_short = global_short or global_slot[d] > now
      if behind_overdue then
        kept_slot[d] = shared_slot(now, d, need + S[OD + kd], window_need + S[OD + kd], room)
      end
      if cost[d] > S[LVL + kd] + EPSILON then
        class_slot[d] = after(now, cost[d] - S[LVL + kd], effective[kd])
        class_short = true
      end
    end
  end
  -- A call that finds a shared bucket short lines up behind its own class's tail, spaced at the
  -- class's effective rate, or behind its class's light tail when its queue is within its share.
  -- A booked call back before its turn keeps its place. One back at or after a slot a line gave it
  -- that finds the capacity taken keeps its place up to PLACES_KEPT times, unless its class
  -- borrows and its queue is in debt, and is overdue while it waits; bounced once more, it lines
  -- up at the back
  -- (NestedBuckets.admit).
  local slot = now
  local behind = now
  if not fresh then
    behind = max(now, booking.ready)
  end
  local line_up = fresh or (now >= booking.ready and not keeps)
  -- A single-call queue's fresh call, its turn now, waits for its own finish time instead.
  local own_finish = fresh and q.out == 0 and turn == now and not q.within and q.rate > 0
  local light_slot = LIGHT_SLOT
  for d = 1, D do
    local kd = base + d
    local light = q.within and class_slot[d] <= now
    local short_slot = global_slot[d]
    if class_slot[d] > short_slot then
      short_slot = class_slot[d]
    end
    if line_up and cost[d] > 0 and short_slot > now then
      if own_finish then
        short_slot = max(short_slot, after(now, sigma, q.rate))
      elseif not q.within and S[CT + kd] > behind then
        short_slot = max(short_slot, after(S[CT + kd], paced[d], effective[kd]))
      elseif light and S[LT + kd] > behind then
        short_slot = max(short_slot, S[LT + kd] + micros(paced[d] / rate[d]))
      end
    end
    light_slot[d] = light
    class_slot[d] = short_slot
    if short_slot > slot then
      slot = short_slot
    end
  end
  local ready = slot
  if turn > slot then
    ready = turn
  end
  if ready > now and behind_overdue then
    for d = 1, D do
      ready = max(ready, kept_slot[d])
    end
  end
  if ready > now and max_wait >= 0 and max(MIN_DEFER_MICROS, ready - now) > max_wait then
    q.lvl = q.lvl + sigma
    if not fresh and q.out > 0 then
      q.out = q.out - 1
    end
    if q.out == 0 then
      released(now, field, q)
    end
    if not fresh then
      -- A booked call gives its slot in its class's line back too.
      for d = 1, D do
        local kd = base + d
        if cost[d] > 0 and S[CT + kd] > now then
          S[CT + kd] = max(now, S[CT + kd] - after(0, paced[d], effective[kd]))
        end
        if cost[d] > 0 and S[LT + kd] > now then
          S[LT + kd] = max(now, S[LT + kd] - micros(paced[d] / rate[d]))
        end
      end
    end
    save_queue(field, q)
    return -max(1, ready - now)
  end
  booking.paid = true
  booking.share = sigma
  if fresh or q.out == 0 then
    q.out = q.out + 1
  end
  if ready > now then
    if booking.lined and not fresh and now >= booking.ready then
      booking.overdue = true
      booking.kept = booking.kept + 1
      for d = 1, D do
        local kd = base + d
        S[OD + kd] = S[OD + kd] + paced[d]
      end
    end
    booking.lined = slot > now and slot >= turn and not own_finish
    if booking.lined then
      for d = 1, D do
        local tail = CT
        if light_slot[d] then
          tail = LT
        end
        S[tail + base + d] = max(S[tail + base + d], class_slot[d])
      end
    end
    booking.ready = ready
    if class_short or turn > now or (P.strict and global_short) or (global_short and uses_share(base, now)) then
      S[CD + k] = now
    end
    if turn > now then
      q.deferred = now
    end
    if booking.lined then
      q.lined = now
    end
    -- A waiting queue is waiting, not under-using.
    uncap(q, ready)
    -- NestedBuckets.seenUntil: the queue stays active for an idle TTL after its call's turn.
    if ready > q.seen then
      local seen_before = q.seen
      q.seen = ready
      index_seen(field, ready, seen_before)
    end
    save_queue(field, q)
    return max(MIN_DEFER_MICROS, ready - now)
  end
  booking.ready = now
  if W then
    booking.entry = window_add(now, cost)
  end
  local horizon, use, sat = P.horizon, q.use, q.sat
  for d = 1, D do
    local kd = base + d
    local c = cost[d]
    S[G + d] = S[G + d] - c
    S[LVL + kd] = S[LVL + kd] - c
    local used = c / horizon
    S[USE + kd] = S[USE + kd] + used
    use[d] = use[d] + used
    if sat then
      S[SU + kd] = S[SU + kd] + used
    end
  end
  save_queue(field, q)
  return 0
end


-- The config field that says a class's waiting line is empty (purge_waiting), by the class index
-- (ARGV[4]), made once per class.
local LINE_FIELD = setmetatable({}, { __index = function(fields, class)
  local field = 'w:' .. class
  fields[class] = field
  return field
end })

-- WaitingLines.purge: drops the calls at the head of this class's line (KEYS[8]) that no longer
-- wait: their booking is gone (admitted, expired), past its TTL or of an earlier layout of the
-- policy. Each entry is "<booking key>|<first
-- attempt µs>", added once when the call is first deferred and dropped once.
-- The config hash's field 'w:<class index from 0>' (named as the line's key ends) is '0' while the
-- line is empty: the purge that finds it empty sets it, the step that adds an entry deletes it, and
-- a class whose field is '0' has nothing to purge, so the step calls this only while the line may
-- hold an entry (lined: the field was not '0' as the step read the config, or the step added one).
-- A line whose field is absent (a target written before the field was kept) is purged as before.
local function purge_waiting(now)
  while true do
    local head = call('LINDEX', KEYS[8], 0)
    if not head then
      call('HSET', KEYS[1], LINE_FIELD[ARGV[4]], '0')
      return
    end
    local key = string.match(head, '^(.*)|')
    local raw = call('GET', key)
    if raw then
      local b = cmsgpack.unpack(raw)
      if b[BOOKING_AT.expires] > now and b[BOOKING_AT.generation] == P.generation then
        return
      end
    end
    call('LPOP', KEYS[8])
  end
end

-- The tables the main body below fills afresh at every call instead of building new ones (in the
-- function library they outlive the call, so a call allocates none of them): the estimate, the
-- reservation, the booking, the booking record a deferral stores, the grant record and the admitted
-- reply.
local ESTIMATE, RESERVE, BOOKING, STORED_BOOKING, GRANT, ADMITTED = {}, {}, {}, {}, {}, {}

local config, live = load_config(ARGV[1], LINE_FIELD[ARGV[4]], true)
if not config then
  return { 2, live }
end
local lined = P.extra ~= '0'
local now = current_time(ARGV[2])
if P.ramp then
  follow_ramp(now)
end
local tenant = ARGV[3]
-- (NUMBERS[text] first: a text seen before costs no call.)
local k = (NUMBERS[ARGV[4]] or number(ARGV[4])) + 1
local weight = NUMBERS[ARGV[5]] or number(ARGV[5])
local max_wait = NUMBERS[ARGV[8]] or number(ARGV[8])
local estimate = ESTIMATE
local reserve
for d = 1, D do
  estimate[d] = ARGV[8 + d] * 1
end
if ARGV[7] == '1' then
  reserve = RESERVE
  for d = 1, D do
    reserve[d] = ARGV[8 + D + d] * 1
  end
end

-- InMemoryGate.admit: a presented booking counts only if it is live, of this generation of the
-- policy's layout, and of this same queue; otherwise the call starts afresh. The stored booking's
-- fields are laid out by BOOKING_AT (nested_buckets.lua).
local booking = BOOKING
local fresh = true
booking.debit, booking.entry = nil, nil
if ARGV[6] == '1' then
  local raw = call('GET', KEYS[9])
  if raw then
    local b, pos = cmsgpack.unpack(raw), BOOKING_AT
    if b[pos.expires] > now and b[pos.generation] == P.generation and b[pos.tenant] == tenant
        and b[pos.class] == k then
      fresh = false
      booking.paid, booking.share, booking.ready, booking.exp = true, b[pos.share], b[pos.ready], b[pos.expires]
      booking.lined, booking.overdue, booking.kept = b[pos.lined] == 1, b[pos.overdue] == 1, b[pos.kept] or 0
    end
  end
end
if fresh then
  booking.paid, booking.share, booking.ready, booking.exp = false, 0, 0, now + P.grant_ttl
  booking.lined, booking.overdue, booking.kept = false, false, 0
end

-- What the provider said (EffectiveCaps.stoppedUntil and pausedUntil, which feedback.lua writes as
-- 'fb_stop' and 'fb_pause'): a stop refuses every call until its reset, a retry-after defers every
-- call until it has passed, before the limits and the rule are asked (read by load_config).
local stopped = P.stop and tonumber(P.stop)
if stopped and stopped > now then
  return { 8, stopped, now }
end
local paused = P.pause and tonumber(P.pause)
if paused and paused > now then
  return { 5, paused - now, now }
end

-- The limits (limits.lua), when the client sent a plan: checked before the rule decides, debited
-- once it admits. Their keys are the step's last three.
local limits_at = 8 + D
if reserve then
  limits_at = limits_at + D
end
local limited = #ARGV > limits_at
if limited then
  local answer = limits_check(limits_at, now, KEYS[#KEYS - 2], KEYS[#KEYS])
  if answer then
    return answer
  end
end

begin_step(now)
-- The queue's field, "<class index from 0>:<tenant>": ARGV[4] is that index as the client writes
-- it (a whole number's digits), so the number is not formatted again.
local field = ARGV[4] .. ':' .. tenant
local wait = admit(now, field, k, weight, estimate, reserve, booking, max_wait)
end_step()
if wait < 0 then
  if not fresh then
    call('DEL', KEYS[9])
  end
  if lined then
    purge_waiting(now)
  end
  return { 3, -wait, now }
end
if wait > 0 then
  local b, pos = STORED_BOOKING, BOOKING_AT
  b[pos.tenant], b[pos.class], b[pos.share], b[pos.ready], b[pos.expires] =
      tenant, k, booking.share, booking.ready, booking.exp
  b[pos.generation], b[pos.lined], b[pos.overdue] = P.generation, booking.lined and 1 or 0, booking.overdue and 1 or 0
  b[pos.kept] = booking.kept
  local stored = cmsgpack.pack(b)
  if fresh then
    call('SET', KEYS[7], stored, 'PX', P.grant_px_text)
    call('RPUSH', KEYS[8], KEYS[7] .. '|' .. fmt(now))
    if not lined then
      call('HDEL', KEYS[1], LINE_FIELD[ARGV[4]])
    end
    purge_waiting(now)
    return { 1, wait, now, 0 }
  end
  call('SET', KEYS[9], stored, 'KEEPTTL')
  if lined then
    purge_waiting(now)
  end
  return { 1, wait, now, 1 }
end
if not fresh then
  call('DEL', KEYS[9])
end
if lined then
  purge_waiting(now)
end
-- The grant, laid out by GRANT_AT (nested_buckets.lua).
local grant, pos = GRANT, GRANT_AT
grant[pos.tenant], grant[pos.class], grant[pos.expires], grant[pos.generation] = tenant, k, now + P.grant_ttl, P.generation
grant[pos.share], grant[pos.entry], grant[pos.entry_at] = booking.share, booking.entry or 0, now
local reply = ADMITTED
reply[1], reply[2] = 0, now
-- Each debit as the reply carries it: a positive whole number below 2^53 (most debits) as a number,
-- which Redis replies as that integer, exactly and without formatting it here; any other as its
-- exact decimal (fmt).
for d = 1, D do
  local x = booking.debit[d]
  grant[pos.size + d] = x
  grant[pos.size + D + d] = estimate[d]
  if x > 0 and x < 9007199254740992 and x % 1 == 0 then
    reply[2 + d] = x
  else
    reply[2 + d] = fmt(x)
  end
end
-- (A policy of fewer dimensions than the last call's leaves no values of that call behind.)
for i = #grant, pos.size + 2 * D + 1, -1 do
  grant[i] = nil
end
for i = #reply, 3 + D, -1 do
  reply[i] = nil
end
if limited then
  limits_debit(limits_at, now, KEYS[#KEYS - 2], KEYS[#KEYS - 1], KEYS[#KEYS], KEYS[6])
end
call('SET', KEYS[6], cmsgpack.pack(grant), 'PX', P.grant_px_text)
return reply
