-- The rebuilt admission rule of io.backpressure.core.FairRule (a cap layer, an order layer and the defer protocol), transcribed for Redis: the
-- cap layer (CapLayer, SlidingWindow), the order layer (OrderLayer) and the defer protocol (FairRule),
-- in that order, each function named as the Java method it mirrors (Layer.method) and keeping its
-- arithmetic in the same order, so that both backends take the same decisions on the same trace. The
-- essays at the top of those Java classes explain the rule; this file explains only how its state is
-- kept in Redis.
--
-- The client prepends nested_buckets.lua (for the parameters, the config, the time and the ramp:
-- load_config, current_time, follow_ramp, fmt) and the state schema SCHEMA (FairRuleSchema.lua(),
-- generated from FairRuleSchema.java: every field, what it is kept per, its first value, and the
-- constants). Nothing here declares a field or a constant of its own.
--
-- Keys (the target's hash tag in every one):
--   KEYS[1] config hash (as for nested_buckets.lua)
--   KEYS[2] state: the schema's global, per-dimension, per-class and per-class-and-dimension fields,
--           one struct-packed array of doubles in SCHEMA order (S below; FIELD[name] is where a
--           field starts, its value for class k and dimension d at FIELD[name] + at(k, d))
--   KEYS[3] queues hash: "<class index from 0>:<tenant>" -> struct of the schema's queue fields
--   KEYS[4] the active queues (zset scored by a time at most their seen: the seen they had when
--           they last became active or were last found still active; OrderLayer.expire reads a
--           queue's record before it takes it out, so a queue seen again costs no write here)
--   KEYS[5] window hash: 'm' -> struct {head[d], next[d], held head[d], held next[d], held count[d]}
--           per dimension, the bounds of the deques below (none: all empty, at 1); 'e<d>:<id>' ->
--           struct {at, amount}, an entry of dimension d's SlidingWindow; 'h<d>:<id>' -> struct
--           {at, amount, debit, sent}, an entry it holds for a firm slot (sent: taken out of the
--           held deque, as Java's held.remove)
--   KEYS[6] the resting queues (zset scored by seen): out of the active set, kept until their idle TTL
--
-- Conventions where Lua and Java differ: a Java name that is a Lua keyword ends in '_' here (until_);
-- classes are indexed from 1 here (k = Java's k + 1) and
-- dimensions likewise; a Java object reference (a booking's firm slot, a grant's window entries) is
-- the id of its record here, and a record whose id is below its deque's head is gone; a held entry
-- is sent at the booking's debit, which its record keeps as its debit. The
-- queues that leave the active set in one step are taken in (seen, order) order, as SeenHeap gives
-- them, so that W_k is decremented in the same order.

local C = SCHEMA.constants
local FIELD, QUEUE_FIELDS, STATE_SIZE = {}, {}, 0
-- What lay_out computes besides, for the dimensions and classes it last laid out (LAID.d, LAID.k):
-- the struct formats of the state, of a queue record and of the window's meta record (LAID.state,
-- LAID.queue, LAID.meta), the meta record of empty deques (LAID.empty) and a new queue's values
-- in QUEUE_FIELDS order (LAID.initial).
local LAID = {}
-- The state of this step (loaded by FairRule.load) and the records it read, written back by
-- FairRule.save: the window's deque bounds, the queues, the window entries and the held slots (a
-- record it changed is marked dirty; 'gone' once it left its deque, false when it is not stored).
-- BOUNDS is read on demand (SlidingWindow.bounds): META is the meta record as read (LAID.empty when
-- there is none), nil while it is not read.
local S, QUEUES, ENTRIES, HELD, META = nil, {}, {}, {}, nil
local BOUNDS = { head = {}, next = {}, held_head = {}, held_next = {}, held_count = {} }
-- The state each step of the function library saved last, by state key (KEPT.states), at most 64
-- of them (KEPT.count): {packed, S, active, resting}, where active and resting are at most the
-- lowest score in the active and the resting zset. A step whose state key holds exactly what was
-- saved there reuses that S and those scores: no other step has changed the state since, and every
-- step that adds to a zset changes the state (touches, restingQueues). Taken out when read and put
-- back by FairRule.save, so a step that fails halfway leaves none behind.
local KEPT = { states = {}, count = 0 }
-- At most the lowest score of this step's active zset and of its resting zset (-huge: not known;
-- OrderLayer.expire reads a zset only when its cutoff is above this).
local LOWEST = { active = -huge, resting = -huge }
-- Tables the steps fill afresh at every call instead of building new ones: FairRule.admit's cost,
-- expected cost and room, FairRule.release's delta, what FairRule.save packs and writes, and the
-- queue records a step reads or makes (queues: the first queues.n of them are this step's, see
-- new_queue), and the entry of KEPT this step took out (kept, nil when none), which FairRule.save
-- refills.
local SCRATCH = { cost = {}, expected = {}, room = {}, delta = {}, values = {}, writes = {}, deletes = {},
  queues = { n = 0 } }
local CapLayer, SlidingWindow, OrderLayer, FairRule = {}, {}, {}, {}
-- The weight w_t of the step's tenant, from the step's arguments (Java: policy.tenantWeight).
local TENANT_WEIGHT

local function doubles(n)
  return '<' .. string.rep('d', n)
end

-- The flat layout of SCHEMA for D dimensions and K classes, and its struct formats; a step that finds
-- them laid out for the same D and K (in the function library, where they outlive the call) keeps
-- them.
local function lay_out()
  if LAID.d == D and LAID.k == K then
    return
  end
  STATE_SIZE, QUEUE_FIELDS = 0, {}
  local initial = {}
  local sizes = { global = 1, dimension = D, class = K, class_dimension = K * D }
  for _, f in ipairs(SCHEMA.fields) do
    local size = sizes[f[2]]
    if size then
      FIELD[f[1]] = STATE_SIZE
      STATE_SIZE = STATE_SIZE + size
    elseif f[2] == 'queue' then
      QUEUE_FIELDS[#QUEUE_FIELDS + 1] = f[1]
      initial[#QUEUE_FIELDS] = f[3]
    end
  end
  local empty = {}
  for d = 1, D do
    empty[d], empty[D + d], empty[2 * D + d], empty[3 * D + d], empty[4 * D + d] = 1, 1, 1, 1, 0
  end
  LAID = { d = D, k = K, state = doubles(STATE_SIZE), queue = doubles(#QUEUE_FIELDS),
    meta = doubles(5 * D), initial = initial }
  LAID.empty = struct_pack(LAID.meta, unpack(empty, 1, 5 * D))
end

-- Reads the window's deque bounds (KEYS[5] 'm'; empty deques when it is not there) unless this step
-- has them.
function SlidingWindow.bounds()
  if META ~= nil then
    return
  end
  META = call('HGET', KEYS[5], 'm') or LAID.empty
  local v = { struct_unpack(LAID.meta, META) }
  for d = 1, D do
    BOUNDS.head[d], BOUNDS.next[d], BOUNDS.held_head[d], BOUNDS.held_next[d], BOUNDS.held_count[d] =
        v[d], v[D + d], v[2 * D + d], v[3 * D + d], v[4 * D + d]
  end
end

-- ---------------------------------------------------------------------------------------------
-- SlidingWindow, one per dimension d: its entries are the records 'e<d>:<id>' from BOUNDS.head[d]
-- to BOUNDS.next[d] − 1, its sum is S[FIELD.sum + d].

local function entry_field(d, id)
  return 'e' .. d .. ':' .. fmt(id)
end

function SlidingWindow.entry(d, id)
  local field = entry_field(d, id)
  local e = ENTRIES[field]
  if e == nil then
    local raw = call('HGET', KEYS[5], field)
    e = false
    if raw then
      local at, amount = struct_unpack('<dd', raw)
      e = { at = at, amount = amount }
    end
    ENTRIES[field] = e
  end
  return e
end

local function held_field(d, id)
  return 'h' .. d .. ':' .. fmt(id)
end

function SlidingWindow.heldEntry(d, id)
  local field = held_field(d, id)
  local e = HELD[field]
  if e == nil then
    local at, amount, debit, sent = struct_unpack('<dddd', call('HGET', KEYS[5], field))
    e = { at = at, amount = amount, debit = debit, sent = sent == 1 }
    HELD[field] = e
  end
  return e
end

function SlidingWindow.expire(d, now)
  while BOUNDS.head[d] < BOUNDS.next[d] do
    local e = SlidingWindow.entry(d, BOUNDS.head[d])
    if e.at > now - P.period then
      break
    end
    S[FIELD.sum + d] = S[FIELD.sum + d] - e.amount
    ENTRIES[entry_field(d, BOUNDS.head[d])] = 'gone'
    BOUNDS.head[d] = BOUNDS.head[d] + 1
  end
  if BOUNDS.head[d] == BOUNDS.next[d] then
    S[FIELD.sum + d] = 0
  end
  while BOUNDS.held_head[d] < BOUNDS.held_next[d] do
    local e = SlidingWindow.heldEntry(d, BOUNDS.held_head[d])
    if not e.sent then
      if e.at > now - P.period then
        break
      end
      S[FIELD.heldSum + d] = S[FIELD.heldSum + d] - e.amount
      S[FIELD.heldExtra + d] = S[FIELD.heldExtra + d] - (e.debit - e.amount)
      BOUNDS.held_count[d] = BOUNDS.held_count[d] - 1
    end
    HELD[held_field(d, BOUNDS.held_head[d])] = 'gone'
    BOUNDS.held_head[d] = BOUNDS.held_head[d] + 1
  end
  if BOUNDS.held_count[d] == 0 then
    S[FIELD.heldSum + d] = 0
    S[FIELD.heldExtra + d] = 0
  end
end

function SlidingWindow.hold(d, at, amount, debit)
  local id = BOUNDS.held_next[d]
  HELD[held_field(d, id)] = { at = at, amount = amount, debit = debit, sent = false, dirty = true }
  BOUNDS.held_next[d] = id + 1
  BOUNDS.held_count[d] = BOUNDS.held_count[d] + 1
  S[FIELD.heldSum + d] = S[FIELD.heldSum + d] + amount
  S[FIELD.heldExtra + d] = S[FIELD.heldExtra + d] + (debit - amount)
  return id
end

-- (amount: the booking's debit in d, the promised entry's debit.)
function SlidingWindow.send(d, promised, amount, now)
  if promised >= BOUNDS.held_head[d] then
    local e = SlidingWindow.heldEntry(d, promised)
    if not e.sent then
      e.sent, e.dirty = true, true
      BOUNDS.held_count[d] = BOUNDS.held_count[d] - 1
      if BOUNDS.held_count[d] == 0 then
        S[FIELD.heldSum + d] = 0
        S[FIELD.heldExtra + d] = 0
      else
        S[FIELD.heldSum + d] = S[FIELD.heldSum + d] - e.amount
        S[FIELD.heldExtra + d] = S[FIELD.heldExtra + d] - (e.debit - e.amount)
      end
    end
  end
  return SlidingWindow.add(d, now, amount)
end

function SlidingWindow.add(d, now, amount)
  local id = BOUNDS.next[d]
  ENTRIES[entry_field(d, id)] = { at = now, amount = amount, dirty = true }
  BOUNDS.next[d] = id + 1
  S[FIELD.sum + d] = S[FIELD.sum + d] + amount
  return id
end

function SlidingWindow.fill(d, now)
  SlidingWindow.add(d, now, P.allowance[d])
end

function SlidingWindow.adjust(d, id, now, delta)
  if id < BOUNDS.head[d] then
    return
  end
  local e = SlidingWindow.entry(d, id)
  if e and e.at > now - P.period then
    e.amount = e.amount + delta
    e.dirty = true
    S[FIELD.sum + d] = S[FIELD.sum + d] + delta
  end
end

-- (The first unsent held entry at or after id, or nil: Java's held iterator.)
function SlidingWindow.nextHeld(d, id)
  while id < BOUNDS.held_next[d] do
    if not SlidingWindow.heldEntry(d, id).sent then
      return id
    end
    id = id + 1
  end
  return nil
end

-- (next: the next sent entry's id, left and back the next held ones', nil when none.)
function SlidingWindow.fitsAt(d, now, amount, lateness, flight)
  local excess = S[FIELD.sum + d] + S[FIELD.heldSum + d] + S[FIELD.heldExtra + d] + amount - P.allowance[d]
  if excess <= C.EPSILON then
    return now
  end
  local next = BOUNDS.head[d] < BOUNDS.next[d] and BOUNDS.head[d] or nil
  local left = SlidingWindow.nextHeld(d, BOUNDS.held_head[d])
  -- (Without a held debit above its amount, no held amount shrinks: nothing to walk for.)
  local back = S[FIELD.heldExtra + d] > C.EPSILON and left or nil
  local leaveAt, backAt, freed = now, -huge, 0
  while true do
    local out, outAt = nil, huge
    if next then
      out = SlidingWindow.entry(d, next)
      outAt = out.at + P.period
    elseif left then
      out = SlidingWindow.heldEntry(d, left)
      outAt = max(leaveAt, out.at + P.period + lateness)
    end
    local t
    local b = back and SlidingWindow.heldEntry(d, back)
    if b and max(backAt, b.at + flight + lateness) < outAt then
      backAt = max(backAt, b.at + flight + lateness)
      t = backAt
      freed = freed + (b.debit - b.amount)
      back = SlidingWindow.nextHeld(d, back + 1)
    elseif next then
      t = outAt
      freed = freed + out.amount
      next = next + 1 < BOUNDS.next[d] and next + 1 or nil
    elseif left then
      leaveAt = outAt
      t = leaveAt
      freed = freed + out.amount
      left = SlidingWindow.nextHeld(d, left + 1)
    else
      return max(leaveAt, now + P.period)
    end
    if freed >= excess - C.EPSILON then
      return max(t, now)
    end
  end
end

-- (id: the entry's; one below the deque's head is gone, at least a period old.)
function SlidingWindow.age(d, id, now)
  if id < BOUNDS.head[d] then
    return P.period
  end
  return min(now - SlidingWindow.entry(d, id).at, P.period)
end

function SlidingWindow.sendableAt(d, now, amount)
  return SlidingWindow.leaves(d, now, S[FIELD.sum + d] + amount - P.allowance[d]) or now + P.period
end

-- (nil where Java returns Long.MIN_VALUE.)
function SlidingWindow.leaves(d, now, excess)
  if excess <= C.EPSILON then
    return now
  end
  local freed = 0
  for id = BOUNDS.head[d], BOUNDS.next[d] - 1 do
    local e = SlidingWindow.entry(d, id)
    freed = freed + e.amount
    if freed >= excess - C.EPSILON then
      return e.at + P.period
    end
  end
  return nil
end

-- ---------------------------------------------------------------------------------------------
-- CapLayer: tat, rate, tolerance per dimension, the callers' mean lateness and its mean deviation,
-- the calls' mean flight time (send to release) and its mean deviation;
-- a window per dimension while P.period > 0 (Java: windows[d] != null).

local function has_window()
  return P.period > 0
end

function CapLayer.configure(now)
  if not has_window() then
    SlidingWindow.bounds()
  end
  for d = 1, D do
    local next = P.rate[d] / 1e6
    local tat = S[FIELD.tat + d]
    if S[FIELD.rate + d] > 0 and tat > now then
      S[FIELD.tat + d] = now + (tat - now) * S[FIELD.rate + d] / next
    end
    S[FIELD.rate + d] = next
    S[FIELD.tolerance + d] = P.burst[d] / next
    if not has_window() then
      BOUNDS.head[d], BOUNDS.held_head[d], BOUNDS.held_count[d] = BOUNDS.next[d], BOUNDS.held_next[d], 0
      S[FIELD.sum + d], S[FIELD.heldSum + d], S[FIELD.heldExtra + d] = 0, 0, 0
    end
  end
end

-- Whether the caps P decides with differ from those the layer was configured with (the rule is then
-- configured again, at its last step's time, as Java's configure runs at a hot update).
function CapLayer.changed()
  for d = 1, D do
    local next = P.rate[d] / 1e6
    if S[FIELD.rate + d] ~= next or S[FIELD.tolerance + d] ~= P.burst[d] / next then
      return true
    end
  end
  return false
end

function CapLayer.empty(now, spent)
  for d = 1, D do
    S[FIELD.tat + d] = max(S[FIELD.tat + d], now + S[FIELD.tolerance + d])
    if spent and has_window() then
      SlidingWindow.fill(d, now)
    end
  end
end

function CapLayer.fitsAt(now, cost, room)
  local at = now
  for d = 1, D do
    if cost[d] > 0 then
      local rate, tolerance = S[FIELD.rate + d], S[FIELD.tolerance + d]
      local need = min(cost[d] + room[d], rate * tolerance)
      at = max(at, max(S[FIELD.tat + d], now) + need / rate - tolerance)
      if has_window() then
        SlidingWindow.expire(d, now)
        at = max(at, SlidingWindow.fitsAt(d, now, min(need, P.allowance[d]),
          math.floor(C.LATE_SPREAD_FACTOR * S[FIELD.lateSpread + 1]),
          math.floor(S[FIELD.flightMean + 1] + C.FLIGHT_SPREAD_FACTOR * S[FIELD.flightSpread + 1])))
      end
    end
  end
  return ceil(at)
end

function CapLayer.take(now, cost, entries)
  CapLayer.debit(now, cost)
  for d = 1, D do
    entries[d] = has_window() and cost[d] > 0 and SlidingWindow.add(d, now, cost[d]) or 0
  end
end

function CapLayer.hold(at, cost, expected, entries)
  CapLayer.debit(at, cost)
  for d = 1, D do
    entries[d] = has_window() and cost[d] > 0
      and SlidingWindow.hold(d, at, min(expected[d], cost[d]), cost[d]) or 0
  end
end

function CapLayer.debit(at, cost)
  for d = 1, D do
    if cost[d] > 0 then
      S[FIELD.tat + d] = max(S[FIELD.tat + d], at) + cost[d] / S[FIELD.rate + d]
    end
  end
end

function CapLayer.sendableAt(now, cost)
  local at = now
  for d = 1, D do
    if has_window() and cost[d] > 0 then
      SlidingWindow.expire(d, now)
      at = max(at, SlidingWindow.sendableAt(d, now, min(cost[d], P.allowance[d])))
    end
  end
  return at
end

-- (cost: the booking's debit, the amounts its entries promised.)
function CapLayer.send(now, slot, entries, cost)
  for d = 1, D do
    if has_window() and entries[d] > 0 then
      entries[d] = SlidingWindow.send(d, entries[d], cost[d], now)
    end
  end
  local late = max(0, now - slot)
  local mean, spread = S[FIELD.lateMean + 1], S[FIELD.lateSpread + 1]
  S[FIELD.lateSpread + 1] = spread + C.SPREAD_WEIGHT * (math.abs(late - mean) - spread)
  S[FIELD.lateMean + 1] = mean + C.MEAN_WEIGHT * (late - mean)
end

function CapLayer.correct(now, delta, entries)
  for d = 1, D do
    if has_window() and entries[d] > 0 then
      local flight = SlidingWindow.age(d, entries[d], now)
      local mean, spread = S[FIELD.flightMean + 1], S[FIELD.flightSpread + 1]
      S[FIELD.flightSpread + 1] = spread + C.SPREAD_WEIGHT * (math.abs(flight - mean) - spread)
      S[FIELD.flightMean + 1] = mean + C.MEAN_WEIGHT * (flight - mean)
      break
    end
  end
  for d = 1, D do
    if delta[d] ~= 0 then
      S[FIELD.tat + d] = max(S[FIELD.tat + d] + delta[d] / S[FIELD.rate + d], now - S[FIELD.tolerance + d])
      if has_window() and entries[d] > 0 then
        SlidingWindow.adjust(d, entries[d], now, delta[d])
      end
    end
  end
end

function CapLayer.charge(now, spent)
  for d = 1, D do
    local tat, tolerance = S[FIELD.tat + d], S[FIELD.tolerance + d]
    local limit = now + 2 * tolerance
    S[FIELD.tat + d] = max(min(max(tat, now) + spent[d] / S[FIELD.rate + d], limit), tat)
  end
end

function CapLayer.closeUntil(d, until_)
  S[FIELD.tat + d] = max(S[FIELD.tat + d], until_ + S[FIELD.tolerance + d])
end

function CapLayer.burst(d)
  return S[FIELD.rate + d] * S[FIELD.tolerance + d]
end

function CapLayer.rate(d)
  return S[FIELD.rate + d]
end

-- ---------------------------------------------------------------------------------------------
-- OrderLayer: classFinish, weightSum, activeQueues, knownWeight, restingQueues (the size of Java's
-- resting map) per class and touches in S; a queue is the record
-- under its field, in the active zset or the resting one. omega is P.weight, the anticipation time A
-- P.horizon_micros, the idle TTL max(P.idle, A).

local function queue_field(tenant, k)
  return (k - 1) .. ':' .. tenant
end

-- A queue record for this step, whose schema fields OrderLayer.fill sets next: one of the tables in
-- SCRATCH.queues (at most 64 kept; a step that reads more makes the rest afresh).
local function new_queue(tenant, k, field, raw)
  local pool = SCRATCH.queues
  local n = pool.n + 1
  local q = pool[n]
  if not q then
    q = {}
    if n <= 64 then
      pool[n] = q
    end
  end
  pool.n = n
  q.tenant, q.priority, q.field, q.raw = tenant, k, field, raw
  return q
end

-- Sets q's fields from a queue record's values (struct.unpack's, passed on without a table).
function OrderLayer.fill(q, ...)
  for i = 1, #QUEUE_FIELDS do
    q[QUEUE_FIELDS[i]] = (select(i, ...))
  end
  return q
end

-- (q.raw: the record as read, which FairRule.save does not write again unchanged.)
function OrderLayer.load(tenant, k)
  local field = queue_field(tenant, k)
  local q = QUEUES[field]
  if q == nil then
    local raw = call('HGET', KEYS[3], field)
    q = false
    if raw then
      q = OrderLayer.fill(new_queue(tenant, k, field, raw), struct_unpack(LAID.queue, raw))
    end
    QUEUES[field] = q
  end
  return q
end

local function idle_ttl()
  return max(P.idle, P.horizon_micros)
end

-- The fields of the members of zset key scored below cutoff, lowest score first, and the lowest score
-- of the others (huge: none). Reads the lowest four with their scores; only when all four are below
-- the cutoff, all that are and then the lowest of the others.
function OrderLayer.below(key, cutoff)
  local page = call('ZRANGEBYSCORE', key, '-inf', '+inf', 'WITHSCORES', 'LIMIT', 0, 4)
  local fields = {}
  for i = 1, #page, 2 do
    local score = page[i + 1] * 1
    if score >= cutoff then
      return fields, score
    end
    fields[#fields + 1] = page[i]
  end
  if #page < 8 then
    return fields, huge
  end
  local at = fmt(cutoff)
  local rest = call('ZRANGEBYSCORE', key, at, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  return call('ZRANGEBYSCORE', key, '-inf', '(' .. at), rest[2] and rest[2] * 1 or huge
end

-- The orders in which the queues that leave the active set and those forgotten are taken.
function OrderLayer.bySeen(a, b)
  if a.seen ~= b.seen then
    return a.seen < b.seen
  end
  return a.order < b.order
end

function OrderLayer.byClassSeen(a, b)
  if a.priority ~= b.priority then
    return a.priority < b.priority
  end
  return OrderLayer.bySeen(a, b)
end

-- (A zset is read only when its lowest score may be below the cutoff.)
function OrderLayer.expire(now)
  local cutoff = now - P.horizon_micros
  if LOWEST.active < cutoff then
    local fields
    fields, LOWEST.active = OrderLayer.below(KEYS[4], cutoff)
    local leaving = {}
    for _, field in ipairs(fields) do
      local k, tenant = string.match(field, '^(%d+):(.*)$')
      local q = OrderLayer.load(tenant, k + 1)
      if q.seen < cutoff then
        leaving[#leaving + 1] = q
      else
        call('ZADD', KEYS[4], fmt(q.seen), field)
        LOWEST.active = min(LOWEST.active, q.seen)
      end
    end
    table.sort(leaving, OrderLayer.bySeen)
    for _, q in ipairs(leaving) do
      call('ZREM', KEYS[4], q.field)
      local k = q.priority
      S[FIELD.activeQueues + k] = S[FIELD.activeQueues + k] - 1
      if S[FIELD.activeQueues + k] == 0 then
        S[FIELD.weightSum + k] = 0
      else
        S[FIELD.weightSum + k] = S[FIELD.weightSum + k] - q.weight
      end
      q.active = 0
      S[FIELD.restingQueues + k] = S[FIELD.restingQueues + k] + 1
      call('ZADD', KEYS[6], fmt(q.seen), q.field)
      LOWEST.resting = min(LOWEST.resting, q.seen)
    end
  end
  -- Forgotten class by class, each in the order it came to rest, as Java's loops take them.
  cutoff = now - idle_ttl()
  if LOWEST.resting < cutoff then
    local fields
    fields, LOWEST.resting = OrderLayer.below(KEYS[6], cutoff)
    local forgotten = {}
    for i, field in ipairs(fields) do
      local k, tenant = string.match(field, '^(%d+):(.*)$')
      forgotten[i] = OrderLayer.load(tenant, k + 1)
    end
    table.sort(forgotten, OrderLayer.byClassSeen)
    for _, q in ipairs(forgotten) do
      local k = q.priority
      S[FIELD.knownWeight + k] = S[FIELD.knownWeight + k] - q.weight
      S[FIELD.restingQueues + k] = S[FIELD.restingQueues + k] - 1
      call('ZREM', KEYS[6], q.field)
      call('HDEL', KEYS[3], q.field)
      QUEUES[q.field] = false
    end
  end
  for k = 1, K do
    if S[FIELD.activeQueues + k] == 0 and S[FIELD.restingQueues + k] == 0 then
      S[FIELD.knownWeight + k] = 0
    end
  end
end

function OrderLayer.touch(until_, tenant, k, weight)
  local q = OrderLayer.load(tenant, k)
  if not q or q.active == 0 then
    if q then
      call('ZREM', KEYS[6], q.field)
      S[FIELD.restingQueues + k] = S[FIELD.restingQueues + k] - 1
    else
      q = OrderLayer.fill(new_queue(tenant, k, queue_field(tenant, k), nil),
        unpack(LAID.initial, 1, #QUEUE_FIELDS))
      QUEUES[q.field] = q
    end
    S[FIELD.knownWeight + k] = S[FIELD.knownWeight + k] + (weight - q.weight)
    q.weight = weight
    q.active = 1
    S[FIELD.weightSum + k] = S[FIELD.weightSum + k] + weight
    S[FIELD.activeQueues + k] = S[FIELD.activeQueues + k] + 1
    q.seen = until_
    S[FIELD.touches + 1] = S[FIELD.touches + 1] + 1
    q.order = S[FIELD.touches + 1]
    call('ZADD', KEYS[4], fmt(q.seen), q.field)
    LOWEST.active = min(LOWEST.active, q.seen)
    return q
  end
  if q.weight ~= weight then
    S[FIELD.weightSum + k] = S[FIELD.weightSum + k] + (weight - q.weight)
    S[FIELD.knownWeight + k] = S[FIELD.knownWeight + k] + (weight - q.weight)
    q.weight = weight
  end
  if until_ > q.seen then
    q.seen = until_
    S[FIELD.touches + 1] = S[FIELD.touches + 1] + 1
    q.order = S[FIELD.touches + 1]
  end
  return q
end

function OrderLayer.classActive(k)
  return S[FIELD.activeQueues + k] > 0
end

function OrderLayer.entitled(k)
  local mine = P.weight[k] * S[FIELD.knownWeight + k]
  local sum = mine
  for j = 1, K do
    if j ~= k and S[FIELD.activeQueues + j] > 0 then
      sum = sum + P.weight[j] * S[FIELD.knownWeight + j]
    end
  end
  if sum > 0 then
    return mine / sum
  end
  return 1
end

function OrderLayer.classStart(k, now)
  return max(S[FIELD.classFinish + k], now)
end

function OrderLayer.queueStart(q, now)
  return max(q.finish, now)
end

function OrderLayer.withinShare(k, now)
  return S[FIELD.classFinish + k] <= now
end

function OrderLayer.payQueue(q, queueStart, sigma, rate)
  q.finish = queueStart + sigma / OrderLayer.queueShare(q, rate)
end

function OrderLayer.forgive(q, now, sigma, rate)
  q.finish = min(q.finish, now + sigma / OrderLayer.queueShare(q, rate))
end

function OrderLayer.payClass(k, classStart, sigma, g)
  S[FIELD.classFinish + k] = classStart + sigma / g
end

function OrderLayer.unpayClassIfLast(k, classStart, sigma, g)
  if S[FIELD.classFinish + k] == classStart + sigma / g then
    S[FIELD.classFinish + k] = classStart
  end
end

function OrderLayer.refundQueue(q, sigma, rate)
  q.finish = q.finish - sigma / OrderLayer.queueShare(q, rate)
end

function OrderLayer.refundClass(k, sigma, g)
  S[FIELD.classFinish + k] = S[FIELD.classFinish + k] - sigma / g
end

function OrderLayer.queueShare(q, rate)
  return rate * q.weight / max(S[FIELD.weightSum + q.priority], q.weight)
end

function OrderLayer.correct(q, sigma, g, rate)
  S[FIELD.classFinish + q.priority] = S[FIELD.classFinish + q.priority] + sigma / g
  q.finish = q.finish + sigma / OrderLayer.queueShare(q, rate)
end

-- ---------------------------------------------------------------------------------------------
-- FairRule: turnUse, servedRate, correction, meanCall, use and last in S. A booking is a table of
-- the Java Booking's fields (held: a slot id or nil; entries: an entry id per dimension, 0: none).

function FairRule.sigma(cost)
  local sigma = 0
  for d = 1, D do
    sigma = max(sigma, cost[d] / CapLayer.rate(d))
  end
  return sigma
end

function FairRule.admit(now, tenant, k, estimate, reserve, booking, maxWaitMicros)
  FairRule.advance(now)
  local q = OrderLayer.touch(now, tenant, k, FairRule.tenantWeight(tenant))
  if booking.lined then
    local at = max(booking.readyAt, CapLayer.sendableAt(now, booking.debit))
    if at > now then
      booking.readyAt = at
      return max(C.MIN_DEFER_MICROS, at - now)
    end
    CapLayer.send(now, booking.readyAt, booking.entries, booking.debit)
    return 0
  end
  local cost, expected = SCRATCH.cost, SCRATCH.expected
  for d = 1, D do
    expected[d] = min(P.largest[d], estimate[d] + S[FIELD.correction + at(k, d)])
    if reserve then
      cost[d] = reserve[d]
    else
      cost[d] = expected[d]
    end
  end
  booking.estimate = estimate
  booking.debit = cost
  local sigma = FairRule.sigma(cost)
  local share = P.strict and 1 or OrderLayer.entitled(k)
  local classRate = max(S[FIELD.servedRate + k], share)
  local fresh = not booking.paid
  if fresh then
    booking.queueStart = OrderLayer.queueStart(q, now)
    OrderLayer.payQueue(q, booking.queueStart, sigma, classRate)
    booking.paid = true
    booking.paidShare = sigma
  end
  local queueTurn = booking.queueStart <= now
  local classPaidNow = queueTurn and not booking.classPaid
  if classPaidNow then
    booking.classStart = OrderLayer.classStart(k, now)
    OrderLayer.payClass(k, booking.classStart, sigma, share)
    booking.classPaid = true
  end
  -- The firm slot: the earliest the cap takes the call leaving no room. A class's turn is measured
  -- against the cap's booked time, not now (docs/admission-rule.md, "The defer protocol",
  -- case 1).
  local firm = huge
  if queueTurn then
    firm = CapLayer.fitsAt(now, cost, FairRule.noRoom())
  end
  local atTurn = false
  if queueTurn then
    if P.strict then
      atTurn = not FairRule.higherActive(k)
    else
      atTurn = booking.classPaid and booking.classStart <= max(now, firm)
    end
  end
  if atTurn then
    for d = 1, D do
      S[FIELD.turnUse + d] = S[FIELD.turnUse + d] + cost[d] / P.horizon_micros
    end
    if firm <= now then
      return FairRule.admitted(now, k, booking, cost, sigma)
    end
    local wait = firm - now
    if maxWaitMicros >= 0 and wait > maxWaitMicros then
      return FairRule.expired(q, booking, fresh, classPaidNow, sigma, share, classRate, wait)
    end
    return FairRule.firmSlot(q, booking, cost, sigma, firm, wait)
  end
  -- Borrowing needs the room others are owed on top of the firm slot's, so it cannot succeed while
  -- the firm slot is later than now.
  local slot
  if not queueTurn then
    slot = CapLayer.fitsAt(now, cost, FairRule.full(cost))
  elseif P.strict or firm <= now then
    slot = CapLayer.fitsAt(now, cost, FairRule.roomFor(k, now))
  else
    slot = ceil(booking.classStart)
  end
  if slot <= now then
    if booking.classPaid then
      OrderLayer.unpayClassIfLast(k, booking.classStart, sigma, share)
    end
    OrderLayer.forgive(q, now, sigma, classRate)
    return FairRule.admitted(now, k, booking, cost, sigma)
  end
  -- Strict mode has no class turn to wait for while a higher class is active: the call comes back
  -- when the cap has the room it must leave.
  local turn
  if queueTurn and P.strict then
    turn = huge
  elseif queueTurn then
    turn = booking.classStart - now
  else
    turn = booking.queueStart - now
  end
  -- A call ahead of its queue's turn is woken when the cap would fill up at its first attempt only.
  local wait
  if (queueTurn and not P.strict) or (not queueTurn and not fresh) then
    wait = max(C.MIN_DEFER_MICROS, ceil(turn))
  else
    wait = max(C.MIN_DEFER_MICROS, min(ceil(turn), slot - now))
  end
  if maxWaitMicros >= 0 and wait > maxWaitMicros then
    return FairRule.expired(q, booking, fresh, classPaidNow, sigma, share, classRate, wait)
  end
  booking.readyAt = now + wait
  OrderLayer.touch(now + wait, tenant, k, q.weight)
  return wait
end

function FairRule.firmSlot(q, booking, cost, sigma, slot, wait)
  CapLayer.hold(slot, cost, SCRATCH.expected, booking.entries)
  FairRule.served(q.priority, cost, sigma)
  booking.lined = true
  booking.readyAt = slot
  OrderLayer.touch(slot, q.tenant, q.priority, q.weight)
  return max(C.MIN_DEFER_MICROS, wait)
end

function FairRule.noRoom()
  local room = SCRATCH.room
  for d = 1, D do
    room[d] = 0
  end
  return room
end

function FairRule.full(cost)
  local room = SCRATCH.room
  for d = 1, D do
    room[d] = CapLayer.burst(d) - 2 * cost[d]
  end
  return room
end

function FairRule.higherActive(k)
  for j = 1, k - 1 do
    if OrderLayer.classActive(j) then
      return true
    end
  end
  return false
end

function FairRule.roomFor(k, now)
  local room = SCRATCH.room
  for d = 1, D do
    room[d] = S[FIELD.turnUse + d] * C.ISOLATION_MICROS
  end
  for j = 1, K do
    local owed = false
    if j ~= k and OrderLayer.classActive(j) then
      if P.strict then
        owed = j < k
      else
        owed = OrderLayer.withinShare(j, now)
      end
    end
    if owed then
      for d = 1, D do
        room[d] = room[d] + S[FIELD.meanCall + at(j, d)]
      end
    end
  end
  return room
end

function FairRule.admitted(now, k, booking, cost, s)
  CapLayer.take(now, cost, booking.entries)
  FairRule.served(k, cost, s)
  booking.readyAt = now
  return 0
end

function FairRule.served(k, cost, s)
  S[FIELD.servedRate + k] = S[FIELD.servedRate + k] + s / P.horizon_micros
  for d = 1, D do
    local kd = at(k, d)
    S[FIELD.meanCall + kd] = S[FIELD.meanCall + kd] + C.CALL_WEIGHT * (cost[d] - S[FIELD.meanCall + kd])
    S[FIELD.use + kd] = S[FIELD.use + kd] + cost[d] / (P.horizon_micros / 1e6)
  end
end

function FairRule.expired(q, booking, fresh, classPaidNow, sigma, share, classRate, wait)
  if fresh then
    q.finish = booking.queueStart
    booking.paid = false
  else
    OrderLayer.refundQueue(q, booking.paidShare, classRate)
  end
  if classPaidNow then
    OrderLayer.unpayClassIfLast(q.priority, booking.classStart, sigma, share)
    booking.classPaid = false
  elseif booking.classPaid then
    OrderLayer.refundClass(q.priority, booking.paidShare, share)
  end
  return -wait
end

function FairRule.tenantWeight(tenant)
  return TENANT_WEIGHT
end

function FairRule.release(now, grant, actual)
  FairRule.advance(now)
  local k = grant.priority
  local ran = true
  local delta = SCRATCH.delta
  for d = 1, D do
    delta[d] = actual[d] - grant.debit[d]
    ran = ran and (grant.estimate[d] <= 0 or actual[d] > 0)
  end
  CapLayer.correct(now, delta, grant.entries)
  local q = OrderLayer.touch(now, grant.tenant, k, FairRule.tenantWeight(grant.tenant))
  local share = P.strict and 1 or OrderLayer.entitled(k)
  OrderLayer.correct(q, FairRule.sigma(actual) - grant.paidShare, share, max(S[FIELD.servedRate + k], share))
  for d = 1, D do
    local kd = at(k, d)
    S[FIELD.use + kd] = max(0, S[FIELD.use + kd] + delta[d] / (P.horizon_micros / 1e6))
    if ran then
      local shortfall = max(0, actual[d] - grant.estimate[d])
      S[FIELD.correction + kd] = S[FIELD.correction + kd] + C.CORRECTION_WEIGHT * (shortfall - S[FIELD.correction + kd])
    end
  end
end

function FairRule.charge(now, spent)
  FairRule.advance(now)
  CapLayer.charge(now, spent)
end

function FairRule.spent(d, until_)
  CapLayer.closeUntil(d, until_)
end

function FairRule.advance(now)
  local last = S[FIELD.last + 1]
  if now > last then
    local keep = exp(-(now - last) / P.horizon_micros)
    for d = 1, D do
      S[FIELD.turnUse + d] = S[FIELD.turnUse + d] * keep
    end
    for k = 1, K do
      S[FIELD.servedRate + k] = S[FIELD.servedRate + k] * keep
      for d = 1, D do
        S[FIELD.use + at(k, d)] = S[FIELD.use + at(k, d)] * keep
      end
    end
    S[FIELD.last + 1] = now
  end
  OrderLayer.expire(now)
end

-- The state as the step's FairRule finds it: loaded, or (no state key: a new target, a new layout,
-- or state lost) made from the schema's first values as a new FairRule is, at its first step
-- (FairRule.advance's start: last ← now, the caps configured, and after a loss the cap empty and
-- the safe window spent). Otherwise configured again at its last step's time when the caps changed
-- since (a hot update, feedback, the ramp) — where Java's configure ran, when they changed — unless
-- configure is false (a release: Java's release leaves a running ramp's caps as they are). Marks
-- the target started (guards.lua: 'started'). Returns whether the state was there.
function FairRule.load(now, configure)
  for field in pairs(QUEUES) do
    QUEUES[field] = nil
  end
  for field in pairs(ENTRIES) do
    ENTRIES[field] = nil
  end
  for field in pairs(HELD) do
    HELD[field] = nil
  end
  META, SCRATCH.queues.n = nil, 0
  lay_out()
  local kept = KEPT.states[KEYS[2]]
  if kept then
    KEPT.states[KEYS[2]], KEPT.count = nil, KEPT.count - 1
  end
  -- (FairRule.save puts the same table back, refilled.)
  SCRATCH.kept = kept
  local raw = call('GET', KEYS[2])
  if raw then
    if not P.started then
      call('HSET', KEYS[1], 'started', '1')
      P.started = true
    end
  elseif P.started then
    START_EMPTY = true
  end
  if raw and #raw == 8 * STATE_SIZE then
    if kept and kept[1] == raw then
      S, LOWEST.active, LOWEST.resting = kept[2], kept[3], kept[4]
    else
      S, LOWEST.active, LOWEST.resting = { struct_unpack(LAID.state, raw) }, -huge, -huge
    end
    if has_window() then
      SlidingWindow.bounds()
    end
    if configure and CapLayer.changed() then
      CapLayer.configure(S[FIELD.last + 1])
    end
    return true
  end
  call('UNLINK', KEYS[3], KEYS[4], KEYS[5], KEYS[6])
  LOWEST.active, LOWEST.resting = huge, huge
  S = {}
  for _, f in ipairs(SCHEMA.fields) do
    local start = FIELD[f[1]]
    if start then
      for i = 1, ({ global = 1, dimension = D, class = K, class_dimension = K * D })[f[2]] do
        S[start + i] = f[3]
      end
    end
  end
  FairRule.bounds()
  if now then
    S[FIELD.last + 1] = now
    CapLayer.configure(now)
    if START_EMPTY then
      CapLayer.empty(now, true)
    end
  end
  return false
end

-- The bounds of empty deques.
function FairRule.bounds()
  META = LAID.empty
  for d = 1, D do
    BOUNDS.head[d], BOUNDS.next[d], BOUNDS.held_head[d], BOUNDS.held_next[d], BOUNDS.held_count[d] = 1, 1, 1, 1, 0
  end
end

-- Runs command on key with the first n values of args, at most 512 of them per call.
function FairRule.write(command, key, args, n)
  for i = 1, n, 512 do
    call(command, key, unpack(args, i, min(n, i + 511)))
  end
end

-- Writes back the state, the deque bounds and every record the step read or made, except those it
-- read and left as they were.
function FairRule.save()
  local values, writes, deletes = SCRATCH.values, SCRATCH.writes, SCRATCH.deletes
  local packed = struct_pack(LAID.state, unpack(S, 1, STATE_SIZE))
  call('SET', KEYS[2], packed)
  local nwrites, ndeletes = 0, 0
  if META ~= nil then
    for d = 1, D do
      values[d], values[D + d], values[2 * D + d], values[3 * D + d], values[4 * D + d] =
          BOUNDS.head[d], BOUNDS.next[d], BOUNDS.held_head[d], BOUNDS.held_next[d], BOUNDS.held_count[d]
    end
    local m = struct_pack(LAID.meta, unpack(values, 1, 5 * D))
    if m ~= META then
      writes[1], writes[2], nwrites = 'm', m, 2
    end
  end
  for field, e in pairs(ENTRIES) do
    if e == 'gone' then
      ndeletes = ndeletes + 1
      deletes[ndeletes] = field
    elseif e and e.dirty then
      writes[nwrites + 1], writes[nwrites + 2], nwrites =
          field, struct_pack('<dd', e.at, e.amount), nwrites + 2
    end
  end
  for field, slot in pairs(HELD) do
    if slot == 'gone' then
      ndeletes = ndeletes + 1
      deletes[ndeletes] = field
    elseif slot.dirty then
      writes[nwrites + 1], writes[nwrites + 2], nwrites =
          field, struct_pack('<dddd', slot.at, slot.amount, slot.debit, slot.sent and 1 or 0), nwrites + 2
    end
  end
  FairRule.write('HSET', KEYS[5], writes, nwrites)
  FairRule.write('HDEL', KEYS[5], deletes, ndeletes)
  nwrites = 0
  local n = #QUEUE_FIELDS
  for field, q in pairs(QUEUES) do
    if q then
      for i = 1, n do
        values[i] = q[QUEUE_FIELDS[i]]
      end
      local record = struct_pack(LAID.queue, unpack(values, 1, n))
      if record ~= q.raw then
        writes[nwrites + 1], writes[nwrites + 2], nwrites = field, record, nwrites + 2
      end
    end
  end
  FairRule.write('HSET', KEYS[3], writes, nwrites)
  if KEPT.count >= 64 then
    KEPT.states, KEPT.count = {}, 0
  end
  local kept = SCRATCH.kept or {}
  kept[1], kept[2], kept[3], kept[4] = packed, S, LOWEST.active, LOWEST.resting
  KEPT.states[KEYS[2]] = kept
  KEPT.count = KEPT.count + 1
end
