-- The nested buckets of io.backpressure.core.NestedBuckets, transcribed for Redis. The essay at the
-- top of NestedBuckets.java explains the algorithm and its names: L1 (one global bucket per
-- dimension d), L2 (one bucket per class k and dimension), L3 (one bucket per queue q = (t, k), in
-- units of dominant share), X*_k (the DRF equalisation rate), D_k,d (the demand sums of a class's
-- queues), U_k,d (what a class's capped queues use), W_k, tails, headroom and bookings; the essay ends
-- with a table of the Java names and their Lua names. Every function below
-- carries the name of the Java method it mirrors and keeps its arithmetic in the same order, so that
-- both backends take the same decisions on the same trace (libm's exp may differ from Java's by an
-- ulp; nothing else differs).
--
-- This file is not a script on its own: the client prepends it to admit.lua and release.lua, which
-- read the parameters and the state through it and then take their step. It runs either as part of
-- one script per call (EVALSHA), where every local below starts afresh at each call, or inside the
-- client's function library (FCALL, see Script.java), where this file runs once and its locals
-- live on between calls: begin_call then forgets the previous call's values, and load_config keeps
-- the parameters it decoded (DECODED) so that a call decodes only parameters it has not seen.
-- The client also prepends it to charge.lua (a step of its own), to levels.lua, queue.lua and
-- apply.lua, which read or size the state by the same layout (see layout), and to feedback.lua,
-- which rewrites the parameters through decode_params and encode_params: no script writes the
-- offsets or the parameters' order out again.
--
-- Units: time in integer microseconds (exact in a double up to 2^53 µs, about 285 years); rates in
-- units per second; dt in seconds; shares (σ, L3 levels) in seconds of the whole cap.
--
-- Keys (all carry the target's hash tag, so they live in one cluster slot):
--   KEYS[1] config hash: version, generation, layout, params (cmsgpack array, see load_config),
--           policy (JSON, for the clients), started (see guards.lua), earliest (at most the
--           lowest score in the seen zset, µs, so that a step looks for idle queues only when one
--           may have expired, see evict_idle; absent: unknown), w:<class index from 0> ('0' while
--           that class's waiting line is empty, see purge_waiting in admit.lua)
--   KEYS[2] state: one struct-packed array of doubles (layout below); absent until the first step
--   KEYS[3] queues hash: field "<class index from 0>:<tenant>" -> one struct-packed L3 queue
--   KEYS[4] seen zset: the same fields, scored by the time they were last seen (idle eviction), or
--           a little earlier within the same stretch of the idle TTL (index_seen)
--   KEYS[5] window hash (only with a safe window): the SlidingWindow of every dimension at once,
--           since all of them record each admission at the same time: field 'meta' -> struct of
--           {head id, next id, sum[d]}, field '<id>' -> struct of {time, amount[d]}
--
-- The state is one flat array S, because building nested tables is what a script spends most of its
-- time on otherwise. With D dimensions and K classes, and the offsets computed in layout:
--   S[LAST]                 time of the last step (µs)          NestedBuckets.lastMicros
--   S[SEQ]                  touches so far (the LRU order)
--   S[G + d]                L1 level of dimension d             global[d]
--   S[LVL + at(k, d)]       L2 level                            classLevel[k][d]
--   S[USE + at(k, d)]       class usage average                 classUse[k][d]
--   S[HD + at(k, d)]        D_k,d of the hungry queues          hungryDemand[k][d]
--   S[AD + at(k, d)]        D_k,d of all active queues          allDemand[k][d]
--   S[SU + at(k, d)]        U_k,d                               satisfiedUse[k][d]
--   S[CT + at(k, d)]        L2 tail                             classTail[k][d]
--   S[N + k]                active queues of class k            activeQueues[k]
--   S[NS + k]               satisfied queues of class k         satisfiedQueues[k]
--   S[CD + k]               last deferral in class k (µs)       classDeferred[k]
--   S[WS + k]               W_k, Σ w_t of class k's queues       weightSum[k]
--   S[CC + at(k, d)]        a new queue's estimate correction    classCorrection[k][d]
--   S[LT + at(k, d)]        L2 tail of queues within their share lightTail[k][d]
--   S[OD + at(k, d)]        cost of the class's overdue calls   overdue[k][d]
--   S[CR + k]               releases class k's correction has   classReleases[k]
--                           learnt from (up to LEARNING_RELEASES)

local max, min, ceil, exp, huge = math.max, math.min, math.ceil, math.exp, math.huge
-- The library functions the steps call, as locals: a global is looked up by name at each use.
local call, struct_pack, struct_unpack = redis.call, struct.pack, struct.unpack
local tonumber, unpack, select = tonumber, unpack, select

local SATISFIED_FRACTION = 0.5
local MIN_DEFER_MICROS = 1000
local EPSILON = 1e-9
local CORRECTION_WEIGHT = 0.2
local LEARNING_RELEASES = 5
local HEADROOM = 0.02
local BORROWER_BURST_CALLS = 2
local ROOM_AHEAD = 0.5
local PLACES_KEPT = 2
local TURN_LEAD = 0.2
-- How many stretches of the idle TTL a queue's score in the seen zset may lag within (index_seen).
local SEEN_STRETCHES = 16
-- "Never deferred" (Java's Long.MIN_VALUE / 2): far enough back that now − NEVER exceeds any horizon.
local NEVER = -4611686018427387904

-- Whether this file runs in the client's function library (Script.java sets it there), which needs
-- Redis 7 or Valkey and so has commands an EVALSHA on Redis 6 may lack (GETDEL).
local IN_LIBRARY = false
-- Whether a first step creates L1 empty instead of full (set by guards.lua when the state was lost;
-- NestedBuckets.startEmpty). L2 starts full, as every class's does when it becomes active.
local START_EMPTY = false
-- The server's TIME as read by guards.lua's give-up check (µs), reused as the step's time; nil when
-- the guard did not read it.
local SERVER_NOW
-- P: the parameters (see load_config); S: the state, nil before the first step.
local P
local S
local D, K
local LAST, SEQ, G, LVL, USE, HD, AD, SU, CT, N, NS, CD, WS, CC, LT, OD, CR, STATE_SIZE, QUEUE_SIZE
-- The config's 'earliest' as this call read it and as it stands (µs; 0 when unknown, huge when
-- the seen zset is empty); end_step writes it back when it changed.
local EARLIEST_READ, EARLIEST
-- The safe window (W.head, W.next, W.sum[d]), loaded on demand; nil without a safe window.
local W
-- Decoded parameters by their packed form, at most DECODED_MAX of them (one per target and cap
-- change; feedback moves the caps continuously, so the table is emptied when full).
local DECODED = {}
local DECODED_COUNT = 0
local DECODED_MAX = 64
-- The state each call saved last, by state key, at most DECODED_MAX of them: {packed, S}. A call
-- whose state key holds exactly what a call saved there reuses that S instead of unpacking it
-- (only in the function library, where this table outlives the call). An entry is taken out when
-- a call reads it and put back by end_step, so a call that fails halfway leaves none behind.
local SAVED = {}
local SAVED_COUNT = 0
-- The entry of SAVED this call took out (begin_step), refilled and put back by end_step.
local TAKEN
-- Records the hot path fills afresh at every call instead of building new ones (in the function
-- library they outlive the call, so a call allocates none of them): the queue a step touches
-- (load_queue; evict_idle asks for records of its own) and the per-dimension values and counters
-- save_queue lays out.
local QUEUE = { con = {}, use = {}, corr = {} }
local QUEUE_VALUES = {}
-- Per-step values, recomputed from S at every step (NestedBuckets.computeShares), by at(k, d): the
-- nominal and effective class rates, whether the class borrows, its L2 capacity (classCap) and
-- whether it is hungry.
local active_weight = 0
local nominal = {}
local effective = {}
local borrowing = {}
local capacity = {}
local hungry = {}
-- What compute_shares last sized the classes from (see size_shares): the parameters (p) and each
-- class's active queues (n[k]) and weight sum (ws[k]); and the share each class had or would have
-- on becoming active (share[kd]).
local SIZED = { n = {}, ws = {}, share = {} }

-- Forgets the previous call's parameters, state and guard results (see the top of this file).
local function begin_call()
  P, S, W, SERVER_NOW, START_EMPTY, TAKEN = nil, nil, nil, nil, false, nil
end

-- Numbers a call reads as text whose texts repeat from call to call (a class index, a weight, a
-- wait limit, the config's generation and 'earliest', the seconds of TIME), by their text:
-- tonumber parses with the C library's strtod, several hundred instructions each, where a look-up
-- here costs a few dozen (in the function library, where this table outlives the call). At most
-- NUMBERS_MAX texts; emptied when full. number(text) is tonumber(text), nil when it is none.
-- A text that always holds a number and rarely repeats (a time, a cost) is read as text * 1:
-- arithmetic converts a string with one strtod, where tonumber runs two (lua_isnumber, then
-- lua_tonumber), and multiplying by 1 changes no double (-0 and infinities included).
local NUMBERS = {}
local NUMBERS_COUNT = 0
local NUMBERS_MAX = 256
local function number(text)
  local n = NUMBERS[text]
  if n == nil then
    n = tonumber(text)
    if n == nil then
      return nil
    end
    if NUMBERS_COUNT >= NUMBERS_MAX then
      NUMBERS, NUMBERS_COUNT = {}, 0
    end
    NUMBERS[text] = n
    NUMBERS_COUNT = NUMBERS_COUNT + 1
  end
  return n
end

-- The flat index of (class k, dimension d).
local function at(k, d)
  return (k - 1) * D + d
end

-- A number as Redis must see it: tostring would keep only 14 significant digits. A positive whole
-- number below 2^53 (a time, an id, most debits) takes the integer conversion, which prints the
-- digits '%.17g' would, for less work.
local function fmt(x)
  if x > 0 and x < 9007199254740992 and x % 1 == 0 then
    return string.format('%d', x)
  end
  return string.format('%.17g', x)
end

-- The state layout (the table at the top of this file) for dims dimensions and classes classes: the
-- one place its offsets and sizes are computed. Every script that reads the state calls it, through
-- load_config (admit.lua, release.lua, charge.lua) or directly (levels.lua, queue.lua), and apply.lua
-- sizes the struct formats by it. A new state field is appended after OD, here and nowhere else.
-- The offsets depend on dims and classes alone, so a call that finds them computed for the same
-- numbers (in the function library, where they outlive the call) keeps them.
local function layout(dims, classes)
  if dims == D and classes == K then
    return
  end
  D, K = dims, classes
  LAST, SEQ, G = 1, 2, 2
  LVL = G + D
  USE = LVL + K * D
  HD = USE + K * D
  AD = HD + K * D
  SU = AD + K * D
  CT = SU + K * D
  N = CT + K * D
  NS = N + K
  CD = NS + K
  WS = CD + K
  CC = WS + K
  LT = CC + K * D
  OD = LT + K * D
  CR = OD + K * D
  STATE_SIZE = CR + K
  -- A queue record (load_queue): ten scalars, con/use/corr per dimension, then out, waiting, rel,
  -- lined.
  QUEUE_SIZE = 14 + 3 * D
end

-- The records the steps store under a grant key and a booking key (cmsgpack arrays), laid out here
-- and nowhere else: each field's position is its place in the list below, so a new field is one
-- more name (a grant's per-dimension values stay last, after its fields).
--   booking: tenant; class (k, from 1); share (the L3 share it paid); ready (its turn, µs); expires
--            (µs); generation (of the policy's layout); lined (1 when its turn is a slot a line gave
--            it, else 0); overdue (1 when overdue, else 0); kept (how many times it kept its place)
--   grant:   tenant; class; expires (µs); generation; share (paid); entry (the id of its safe-window
--            entry, 0: none); entry_at (that entry's time, µs); then the debit of each dimension d
--            at GRANT_AT.size + d and its estimate at GRANT_AT.size + D + d
local function positions(names)
  local at = { size = #names }
  for i, name in ipairs(names) do
    at[name] = i
  end
  return at
end
local BOOKING_AT = positions({ 'tenant', 'class', 'share', 'ready', 'expires', 'generation', 'lined', 'overdue',
  'kept' })
local GRANT_AT = positions({ 'tenant', 'class', 'expires', 'generation', 'share', 'entry', 'entry_at' })

-- The struct formats of the state, of one queue, of the safe window's meta record and of one window
-- entry (load_window, load_entry), for the layout last computed: apply.lua packs them with the
-- parameters, so a step does not build them.
local function struct_formats()
  local function doubles(n)
    return '<' .. string.rep('d', n)
  end
  return doubles(STATE_SIZE), doubles(QUEUE_SIZE), doubles(2 + D), doubles(1 + D)
end

-- The state array packed in raw, or nil when raw is of another size (written by an older layout of
-- this file). Needs the parameters (P) and the layout.
local function decode_state(raw)
  if #raw ~= 8 * STATE_SIZE then
    return nil
  end
  return { struct_unpack(P.state_format, raw) }
end

-- Decodes the parameters (in PolicyCodec.params order): dims, classes, rate[d] (r_d), burst[d]
-- (B_d), largest[d] (the largest cost that can ever fit), weight[k] (ω_k), horizon (H, s),
-- horizon_micros, idle (idle TTL, µs), grant_ttl (µs), grant_px (ms), period (safe window, µs; 0 =
-- none), allowance[d] (r_d · period), strict (1 in strict priority mode, else 0), then the struct
-- formats apply.lua adds.
local function decode_params(packed)
  local v = cmsgpack.unpack(packed)
  local dims, classes = v[1], v[2]
  local p = { dims = dims, classes = classes, rate = {}, burst = {}, largest = {}, weight = {}, allowance = {} }
  for d = 1, dims do
    p.rate[d] = v[2 + d]
    p.burst[d] = v[2 + dims + d]
    p.largest[d] = v[2 + 2 * dims + d]
  end
  local i = 3 + 3 * dims
  for k = 1, classes do
    p.weight[k] = v[i]
    i = i + 1
  end
  p.horizon, p.horizon_micros, p.idle, p.grant_ttl, p.grant_px, p.period =
      v[i], v[i + 1], v[i + 2], v[i + 3], v[i + 4], v[i + 5]
  i = i + 6
  for d = 1, dims do
    p.allowance[d] = v[i]
    i = i + 1
  end
  p.strict = v[i] == 1
  i = i + 1
  p.state_format, p.queue_format, p.meta_format, p.entry_format = v[i], v[i + 1], v[i + 2], v[i + 3]
  -- SET's PX argument, formatted once rather than at every grant and booking.
  p.grant_px_text = fmt(p.grant_px)
  -- The stretch within which a queue seen again keeps its score in the seen zset (index_seen):
  -- SEEN_STRETCHES of them per idle TTL, whole µs.
  p.seen_step = max(1, p.idle / SEEN_STRETCHES - (p.idle / SEEN_STRETCHES) % 1)
  return p
end

-- The inverse of decode_params, in the same order: feedback.lua writes the learned caps' numbers in
-- place of the configured ones through it.
local function encode_params(p)
  local v = { p.dims, p.classes }
  for _, field in ipairs({ p.rate, p.burst, p.largest }) do
    for d = 1, p.dims do
      v[#v + 1] = field[d]
    end
  end
  for k = 1, p.classes do
    v[#v + 1] = p.weight[k]
  end
  for _, x in ipairs({ p.horizon, p.horizon_micros, p.idle, p.grant_ttl, p.grant_px, p.period }) do
    v[#v + 1] = x
  end
  for d = 1, p.dims do
    v[#v + 1] = p.allowance[d]
  end
  v[#v + 1] = p.strict and 1 or 0
  for _, x in ipairs({ p.state_format, p.queue_format, p.meta_format, p.entry_format }) do
    v[#v + 1] = x
  end
  return cmsgpack.pack(v)
end

-- Reads the parameters (decoded once per packed form, see DECODED), the generation and whether the
-- target has had state ('started', see guards.lua and begin_step), and, when the step names one,
-- one more field of the config hash (P.extra: its value, or false); with told (an admission, which
-- names extra) also what the provider said, in the same command: 'fb_pause' and 'fb_stop' as
-- P.pause and P.stop (the stored texts, or false). Returns nil and the stored version when the
-- caller's version is not the live one (the caller then reloads the policy and asks again).
local function load_config(version, extra, told)
  local cfg
  if told then
    cfg = call('HMGET', KEYS[1], 'version', 'params', 'generation', 'started', 'earliest', 'fb_ramp',
      'fb_spent', extra, 'fb_pause', 'fb_stop')
  elseif extra then
    cfg = call('HMGET', KEYS[1], 'version', 'params', 'generation', 'started', 'earliest', 'fb_ramp',
      'fb_spent', extra)
  else
    cfg = call('HMGET', KEYS[1], 'version', 'params', 'generation', 'started', 'earliest', 'fb_ramp',
      'fb_spent')
  end
  if not cfg[1] or cfg[1] ~= version then
    return nil, cfg[1] or ''
  end
  local decoded = DECODED[cfg[2]]
  if not decoded then
    decoded = decode_params(cfg[2])
    if DECODED_COUNT >= DECODED_MAX then
      DECODED, DECODED_COUNT = {}, 0
    end
    DECODED[cfg[2]] = decoded
    DECODED_COUNT = DECODED_COUNT + 1
  end
  -- The decoded parameters are shared between calls and only read (follow_ramp scales a copy); the
  -- seven fields that are not parameters are set again by every call before anything reads them.
  P = decoded
  -- (NUMBERS[text] first: a text seen before costs no call.)
  P.generation, P.started, P.ramp, P.spent, P.extra, P.pause, P.stop =
      NUMBERS[cfg[3]] or number(cfg[3]), cfg[4] ~= false, cfg[6], cfg[7], cfg[8], cfg[9], cfg[10]
  EARLIEST_READ = NUMBERS[cfg[5]] or number(cfg[5]) or 0
  EARLIEST = EARLIEST_READ
  layout(P.dims, P.classes)
  return P
end

-- The decision time: the caller's microseconds, or the server's clock (read once per call).
local function current_time(argument)
  if argument ~= '' then
    return argument * 1
  end
  if SERVER_NOW then
    return SERVER_NOW
  end
  local t = call('TIME')
  return number(t[1]) * 1000000 + t[2] * 1
end

-- The recovery ramp (EffectiveCaps.rampMultiplier): while one runs, feedback.lua keeps its start
-- and end (µs) and its fraction f in the config hash's 'fb_ramp', and every decision scales the
-- rates, bursts, largest costs and window allowances by f + (1 − f)·(now − start)/(end − start)
-- at its own time, so the ramp advances whether or not answers are reported. The scaled values go
-- into a copy of P: the decoded parameters are shared with later calls. The steps call it only
-- while the config holds a ramp (P.ramp).
local function follow_ramp(now)
  local r = cmsgpack.unpack(P.ramp)
  if now >= r[2] then
    return
  end
  local m = r[3] + (1 - r[3]) * max(0, now - r[1]) / (r[2] - r[1])
  local ramped = {}
  for key, value in pairs(P) do
    ramped[key] = value
  end
  ramped.rate, ramped.burst, ramped.largest, ramped.allowance = {}, {}, {}, {}
  for d = 1, D do
    ramped.rate[d], ramped.burst[d] = P.rate[d] * m, P.burst[d] * m
    ramped.largest[d], ramped.allowance[d] = P.largest[d] * m, P.allowance[d] * m
  end
  P = ramped
end

-- One L3 queue: its level and capacity (shares), refill rate ρ_q (share/s), weight w_t, whether it
-- counts as satisfied, last refill and last seen (µs), touch order, class, last deferral (µs), per
-- dimension its demand contribution (w_t · c_d / σ), usage average and estimate correction, then
-- its outstanding calls, the latest turn of its deferred calls (µs; Queue.waitingUntil), the
-- releases its correction has learnt from (Queue.releases) and when a line last deferred one of its
-- calls (µs; Queue.linedAt). fill_queue sets q from the record's values (struct.unpack's, passed on
-- without a table).
local function fill_queue(q, lvl, cap, rate, w, sat, last, seen, seq, k, deferred, ...)
  q.lvl, q.cap, q.rate, q.w, q.sat, q.last, q.seen, q.seq, q.k, q.deferred =
      lvl, cap, rate, w, sat == 1, last, seen, seq, k, deferred
  for d = 1, D do
    q.con[d], q.use[d], q.corr[d] = (select(d, ...)), (select(D + d, ...)), (select(2 * D + d, ...))
  end
  q.out, q.waiting, q.rel, q.lined = select(3 * D + 1, ...)
  return q
end

-- The queue of field, or nil when it has none; filled into the one record QUEUE, which the next
-- load_queue overwrites, unless own asks for a record of its own.
local function load_queue(field, own)
  local raw = call('HGET', KEYS[3], field)
  -- A record of another size (written by an older layout of this file) is not read: the queue
  -- starts afresh, as a new one would.
  if not raw or #raw ~= 8 * QUEUE_SIZE then
    return nil
  end
  local q = QUEUE
  if own then
    q = { con = {}, use = {}, corr = {} }
  end
  return fill_queue(q, struct_unpack(P.queue_format, raw))
end

-- Writes the queue of field: the ten scalars go to struct.pack as arguments, QUEUE_VALUES lays out
-- the rest.
local function save_queue(field, q)
  local v, con, use, corr = QUEUE_VALUES, q.con, q.use, q.corr
  for d = 1, D do
    v[d] = con[d]
    v[D + d] = use[d]
    v[2 * D + d] = corr[d]
  end
  local i = 3 * D
  v[i + 1], v[i + 2], v[i + 3], v[i + 4] = q.out, q.waiting, q.rel, q.lined
  call('HSET', KEYS[3], field, struct_pack(P.queue_format, q.lvl, q.cap, q.rate, q.w, q.sat and 1 or 0, q.last,
    q.seen, q.seq, q.k, q.deferred, unpack(v, 1, i + 4)))
end

-- Records in the seen zset that the queue of field is active until seen (µs), keeping EARLIEST
-- a lower bound of every score in it. The score goes to Redis as fmt's text: redis.call would
-- format a number argument with '%.17g', several times the work of fmt's integer conversion for
-- the same digits.
--
-- A queue's score is a lower bound of its last-seen time (q.seen), in the same stretch of
-- P.seen_step µs: a queue seen again in the stretch it was last scored in keeps its score (before:
-- q.seen as it stood; nil when the queue is not in the zset yet or its time moved back, which is
-- always written), so a tenant that calls often costs one ZADD per stretch instead of one per
-- call. evict_idle reads the queue's own q.seen before it evicts one.
local function index_seen(field, seen, before)
  if before and seen >= before then
    local step = P.seen_step
    if seen - seen % step == before - before % step then
      return
    end
  end
  call('ZADD', KEYS[4], fmt(seen), field)
  if seen < EARLIEST then
    EARLIEST = seen
  end
end

-- EARLIEST raised to the seen zset's lowest score (huge when it is empty).
local function find_earliest()
  local first = call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')
  EARLIEST = tonumber(first[2]) or huge
end

-- NestedBuckets.share: the dominant share σ = max_d c_d / r_d.
local function share(cost)
  local rate = P.rate
  local sigma = 0
  for d = 1, D do
    local s = cost[d] / rate[d]
    if s > sigma then
      sigma = s
    end
  end
  return sigma
end

-- NestedBuckets.micros: seconds to whole microseconds, rounded up.
local function micros(seconds)
  return ceil(seconds * 1e6)
end

-- NestedBuckets.headroom: the room a borrowing call of cost in dimension d must see come free again
-- soon in the safe window: one more call like it, at least HEADROOM of the largest cost.
local function headroom(cost, d)
  local room = HEADROOM * P.largest[d]
  if cost > room then
    room = cost
  end
  return max(0, min(room, P.largest[d] - cost))
end

-- NestedBuckets.borrows: whether class k uses capacity handed down by others in some dimension.
local function borrows(k)
  for d = 1, D do
    if borrowing[at(k, d)] then
      return true
    end
  end
  return false
end

-- NestedBuckets.keepsPlace: whether a call holding booking keeps its place when it finds the capacity
-- its slot promised taken (queue q, this call paid).
local function keeps_place(booking, k, q)
  return booking.lined and booking.kept < PLACES_KEPT and (not borrows(k) or q.lvl >= -EPSILON)
end

-- NestedBuckets.equalSplitRate: the dominant-share rate per unit of tenant weight if class k's
-- effective rate were split among all its active queues by their demand (huge: no demand).
local function equal_split_rate(k)
  local all = huge
  local kd = (k - 1) * D + 1
  for _ = 1, D do
    local demand = S[AD + kd]
    if demand > 0 and effective[kd] / demand < all then
      all = effective[kd] / demand
    end
    kd = kd + 1
  end
  return all
end

-- NestedBuckets.dominantUse: a queue's admitted rate in dominant share per second, max_d use_d / r_d.
local function dominant_use(q)
  local rate, used = P.rate, q.use
  local use = 0
  for d = 1, D do
    local u = used[d] / rate[d]
    if u > use then
      use = u
    end
  end
  return use
end

-- NestedBuckets.overdueOfOthers: what a call of class k must leave free in dimension d's shared
-- buckets for the overdue calls of the other classes that do not borrow (units).
local function overdue_of_others(k, d)
  local owed = 0
  for j = 1, K do
    if j ~= k and not borrowing[at(j, d)] then
      owed = owed + S[OD + at(j, d)]
    end
  end
  return owed
end

-- NestedBuckets.after: the time amount takes to refill at rate, from from (µs); one share horizon
-- when the rate is zero (a strict-mode class that higher classes leave nothing).
local function after(from, amount, rate)
  if rate > 0 then
    return from + micros(amount / rate)
  end
  return from + P.horizon_micros
end

-- NestedBuckets.turnAfter: the turn of a fresh call whose queue is debt shares behind (its own
-- share sigma included): the calls ahead drain at (1 + TURN_LEAD) · rate, its own share at rate.
local function turn_after(now, debt, sigma, rate)
  local ahead = max(0, debt - sigma)
  return after(after(now, ahead, rate * (1 + TURN_LEAD)), min(debt, sigma), rate)
end

-- NestedBuckets.strictShares: in strict mode each class, highest first, may use what the classes
-- above it leave in dimension d; a hungry class leaves nothing, a satisfied one what it does not use.
local function strict_shares(d)
  local left = P.rate[d]
  local kd = d
  for k = 1, K do
    effective[kd] = left
    if S[N + k] > 0 then
      if hungry[kd] then
        left = 0
      else
        left = max(0, left - S[USE + kd])
      end
    end
    kd = kd + D
  end
end

-- NestedBuckets.computeShares, the part that depends on the active set alone: the total active
-- weight, each class's nominal rate (its weighted part of the cap while active) and share (the
-- nominal rate, or for an inactive class the rate it would get on becoming active), and its L2
-- capacity, max(B_d, share · H). These change only when a class's active queues or weight sum (or
-- the parameters) do, which most steps leave as they were, so compute_shares calls this only then.
local function size_shares()
  local S, N, WS = S, N, WS
  local nominal, capacity, share_of = nominal, capacity, SIZED.share
  local weight, rate, largest, horizon = P.weight, P.rate, P.largest, P.horizon
  local aw = 0
  for k = 1, K do
    if S[N + k] > 0 then
      aw = aw + weight[k] * S[WS + k]
    end
  end
  active_weight = aw
  for d = 1, D do
    local rd = rate[d]
    local kd = d
    for k = 1, K do
      local w = weight[k]
      local share
      if S[N + k] > 0 then
        share = w * S[WS + k] / aw * rd
        nominal[kd] = share
      else
        share = w / (aw + w) * rd
        nominal[kd] = 0
      end
      share_of[kd] = share
      local cap = largest[d]
      if share * horizon > cap then
        cap = share * horizon
      end
      capacity[kd] = cap
      kd = kd + D
    end
  end
  SIZED.p = P
  for k = 1, K do
    SIZED.n[k], SIZED.ws[k] = S[N + k], S[WS + k]
  end
end

-- NestedBuckets.computeShares: nominal and effective class rates from the active set; the unused
-- rate of satisfied classes is handed to the hungry ones in proportion to their weights. A class is
-- hungry (not satisfied) unless it is at least half full and no call of it was deferred by its own
-- buckets (L2, or its queues' L3) within the share horizon.
--
-- This runs at every step for every class and dimension, so it is written for Lua 5.1's
-- interpreter: what depends on the active set alone is kept from the last step that sized it
-- (size_shares), the state, the offsets and the per-step tables are read into locals first (an
-- upvalue costs one more instruction at each use), every (k, d) is visited once per loop with its
-- index kd stepping by D (see at), and the comparisons written out are math.max and math.min's own
-- (max(a, b) is b when b > a, else a), so every result is the one the calls gave, to the bit.
local function compute_shares(now)
  local S, N, WS, LVL, USE, CD = S, N, WS, LVL, USE, CD
  local sized = SIZED.p == P
  for k = 1, K do
    if not sized then
      break
    end
    sized = S[N + k] == SIZED.n[k] and S[WS + k] == SIZED.ws[k]
  end
  if not sized then
    size_shares()
  end
  local nominal, effective, capacity, hungry, borrowing = nominal, effective, capacity, hungry, borrowing
  local share_of, weight, horizon_micros = SIZED.share, P.weight, P.horizon_micros
  for d = 1, D do
    local unused = 0
    local hungry_weight = 0
    local kd = d
    for k = 1, K do
      if S[N + k] > 0 then
        local h = not (S[LVL + kd] >= SATISFIED_FRACTION * capacity[kd] and now - S[CD + k] > horizon_micros)
        hungry[kd] = h
        if h then
          hungry_weight = hungry_weight + weight[k] * S[WS + k]
        else
          local spare = nominal[kd] - S[USE + kd]
          if spare > 0 then
            unused = unused + spare
          end
        end
      else
        hungry[kd] = false
      end
      kd = kd + D
    end
    if P.strict then
      strict_shares(d)
      kd = d
      for k = 1, K do
        borrowing[kd] = S[N + k] > 0 and effective[kd] > nominal[kd] + EPSILON
        kd = kd + D
      end
    else
      kd = d
      for k = 1, K do
        if S[N + k] > 0 then
          local e = nominal[kd]
          if hungry[kd] then
            e = e + unused * weight[k] * S[WS + k] / hungry_weight
          end
          effective[kd] = e
          borrowing[kd] = e > nominal[kd] + EPSILON
        else
          effective[kd] = share_of[kd]
          borrowing[kd] = false
        end
        kd = kd + D
      end
    end
  end
end

-- NestedBuckets.contribute: adds a queue's demand (D_k,d) or usage (U_k,d) to its class's sums.
local function contribute(q)
  local S, AD, SU, HD = S, AD, SU, HD
  local k, con, use, sat = q.k, q.con, q.use, q.sat
  local kd = (k - 1) * D + 1
  for d = 1, D do
    S[AD + kd] = S[AD + kd] + con[d]
    if sat then
      S[SU + kd] = S[SU + kd] + use[d]
    else
      S[HD + kd] = S[HD + kd] + con[d]
    end
    kd = kd + 1
  end
  if q.sat then
    S[NS + k] = S[NS + k] + 1
  end
  S[WS + k] = S[WS + k] + q.w
end

-- NestedBuckets.withdraw: takes a queue's contribution back out of the running sums.
-- The sums never go below zero: max(0, x) is written out as math.max's own comparison (x when
-- x > 0, else 0).
local function withdraw(q)
  local S, AD, SU, HD = S, AD, SU, HD
  local k, con, use, sat = q.k, q.con, q.use, q.sat
  local kd = (k - 1) * D + 1
  for d = 1, D do
    local i = AD + kd
    local left = S[i] - con[d]
    S[i] = left > 0 and left or 0
    if sat then
      i = SU + kd
      left = S[i] - use[d]
    else
      i = HD + kd
      left = S[i] - con[d]
    end
    S[i] = left > 0 and left or 0
    kd = kd + 1
  end
  if sat then
    S[NS + k] = S[NS + k] - 1
  end
  local left = S[WS + k] - q.w
  S[WS + k] = left > 0 and left or 0
end

-- NestedBuckets.uncap: a queue whose call was just deferred to ready (µs) is waiting, not
-- under-using, whatever its L3 bucket banks: it counts by its demand, not by its use, until then.
local function uncap(q, ready)
  q.waiting = max(q.waiting, ready)
  if q.sat then
    withdraw(q)
    q.sat = false
    contribute(q)
  end
end

-- NestedBuckets.learningWeight: the running mean's 1 / (releases + 1) until that falls to
-- CORRECTION_WEIGHT.
local function learning_weight(releases)
  local weight = 1 / (releases + 1)
  if weight > CORRECTION_WEIGHT then
    return weight
  end
  return CORRECTION_WEIGHT
end

-- NestedBuckets.released: the queue's last outstanding call (q.out, Queue.outstanding) was released
-- or expired; it counts as seen one share horizon short of the idle TTL ago, so evict_idle takes it
-- out of the sums one share horizon from now unless it calls again.
local function released(now, field, q)
  local idle = P.idle - P.horizon_micros
  if not (idle > 0) then
    idle = 0
  end
  local seen = now - idle
  if seen < q.seen then
    q.seen = seen
    index_seen(field, seen)
  end
end

-- NestedBuckets.evictIdle: queues not seen for longer than the idle TTL (a deferred call counts as
-- seen until its turn, NestedBuckets.seenUntil) leave the sums, oldest touch first. The zset finds
-- them without a scan; each queue is evicted once, so the work is amortised O(1) per admission. No
-- queue can have expired while EARLIEST, a lower bound of the zset's scores, is within the TTL:
-- advance calls this only when it is not; after a look-up the bound is raised to the zset's lowest score, so
-- it is looked up about once per TTL. A score is a lower bound of its queue's q.seen (index_seen):
-- a queue the look-up finds that was seen since is scored by its q.seen again and stays.
local function evict_idle(now)
  local cutoff = now - P.idle
  local expired = call('ZRANGEBYSCORE', KEYS[4], '-inf', '(' .. fmt(cutoff))
  if #expired == 0 then
    find_earliest()
    return
  end
  local CHUNK = 512
  local gone = {}
  for i = 1, #expired, CHUNK do
    local leaving = {}
    for j = i, min(i + CHUNK - 1, #expired) do
      local field = expired[j]
      local q = load_queue(field, true)
      if q and q.seen >= cutoff then
        call('ZADD', KEYS[4], fmt(q.seen), field)
      else
        gone[#gone + 1] = q
        leaving[#leaving + 1] = field
      end
    end
    if #leaving > 0 then
      call('HDEL', KEYS[3], unpack(leaving))
      call('ZREM', KEYS[4], unpack(leaving))
    end
  end
  -- The Java gate evicts in least-recently-touched order; seq is the touch order.
  table.sort(gone, function(a, b) return a.seq < b.seq end)
  for _, q in ipairs(gone) do
    local k = q.k
    withdraw(q)
    S[N + k] = S[N + k] - 1
    if S[N + k] == 0 then
      for d = 1, D do
        local kd = at(k, d)
        S[AD + kd] = 0
        S[HD + kd] = 0
        S[SU + kd] = 0
      end
      S[WS + k] = 0
    end
  end
  find_earliest()
end

-- SlidingWindow, for all dimensions at once: the amounts admitted in the last period, oldest first
-- (ids W.head .. W.next − 1), and their sums. A call fits iff sum + cost stays within C_d · period.
local function load_window()
  local raw = call('HGET', KEYS[5], 'meta')
  W = { sum = {}, raw = raw }
  if raw then
    local v = { struct_unpack(P.meta_format, raw) }
    W.head, W.next = v[1], v[2]
    for d = 1, D do
      W.sum[d] = v[2 + d]
    end
  else
    W.head, W.next = 1, 1
    for d = 1, D do
      W.sum[d] = 0
    end
  end
end

-- Writes the meta record back, unless the step left it as it was read (W.raw).
local function save_window()
  local packed = struct_pack(P.meta_format, W.head, W.next, unpack(W.sum, 1, D))
  if packed ~= W.raw then
    call('HSET', KEYS[5], 'meta', packed)
  end
end

local function load_entry(id)
  local raw = call('HGET', KEYS[5], fmt(id))
  if not raw then
    return nil
  end
  return { struct_unpack(P.entry_format, raw) }
end

local function save_entry(id, entry)
  call('HSET', KEYS[5], fmt(id), struct_pack(P.entry_format, unpack(entry, 1, 1 + D)))
end

-- SlidingWindow.expire: drops the amounts older than one period before now.
local function window_expire(now)
  load_window()
  while W.head < W.next do
    local entry = load_entry(W.head)
    if entry[1] > now - P.period then
      break
    end
    for d = 1, D do
      W.sum[d] = W.sum[d] - entry[1 + d]
    end
    call('HDEL', KEYS[5], fmt(W.head))
    W.head = W.head + 1
  end
  if W.head == W.next then
    for d = 1, D do
      W.sum[d] = 0
    end
  end
end

-- SlidingWindow.fitsAt: the earliest time amount fits in dimension d, if nothing else is admitted.
local function window_fits_at(now, d, amount)
  local excess = W.sum[d] + amount - P.allowance[d]
  if excess <= EPSILON then
    return now
  end
  local freed = 0
  for id = W.head, W.next - 1 do
    local entry = load_entry(id)
    freed = freed + entry[1 + d]
    if freed >= excess - EPSILON then
      return entry[1] + P.period
    end
  end
  return now + P.period
end

-- NestedBuckets.sharedSlot: when L1 of dimension d holds amount and its safe window holds
-- window_amount, and will hold room more within ROOM_AHEAD of the time L1 takes to refill room.
local function shared_slot(now, d, amount, window_amount, room)
  local at = now
  if amount > S[G + d] + EPSILON then
    at = now + micros((amount - S[G + d]) / P.rate[d])
  end
  if W then
    at = max(at, window_fits_at(now, d, window_amount))
    if room > 0 then
      at = max(at, window_fits_at(now, d, window_amount + room) - micros(ROOM_AHEAD * room / P.rate[d]))
    end
  end
  return at
end

-- SlidingWindow.add, for every dimension: records an admission; returns its id.
local function window_add(now, cost)
  local entry = { now }
  for d = 1, D do
    entry[1 + d] = cost[d]
    W.sum[d] = W.sum[d] + cost[d]
  end
  local id = W.next
  save_entry(id, entry)
  W.next = id + 1
  return id
end

-- NestedBuckets.advance: refills L1 and L2 and decays the usage averages up to now. The first step
-- of a target (no stored state) creates every bucket full, inside this same atomic step.
-- NestedBuckets.holdSpent: while feedback.lua keeps 'fb_spent' (per dimension, until when the
-- provider said its window is spent, then when the 429 that said so came, µs), L1 of such a
-- dimension stays at most r_d · (now - from) until then. advance calls it only while the config
-- holds 'fb_spent' (P.spent). A field written by a feedback.lua that stored no 'from' (until
-- alone) holds L1 empty until the reset.
local function hold_spent(now)
  local spent = cmsgpack.unpack(P.spent)
  for d = 1, D do
    if spent[d] > now then
      S[G + d] = min(S[G + d], P.rate[d] * ((now - (spent[D + d] or now)) / 1e6))
    end
  end
end

local function advance(now)
  if not S then
    call('UNLINK', KEYS[3], KEYS[4], KEYS[5])
    S = {}
    for i = 1, STATE_SIZE do
      S[i] = 0
    end
    for k = 1, K do
      S[CD + k] = NEVER
    end
    S[LAST] = now
    for d = 1, D do
      S[G + d] = START_EMPTY and 0 or P.burst[d]
    end
    if EARLIEST < now - P.idle then
      evict_idle(now)
    end
    compute_shares(now)
    for k = 1, K do
      for d = 1, D do
        S[LVL + at(k, d)] = capacity[at(k, d)]
      end
    end
    if P.spent then
      hold_spent(now)
    end
    return
  end
  local dt = 0
  if now > S[LAST] then
    dt = (now - S[LAST]) / 1e6
    S[LAST] = now
  end
  if EARLIEST < now - P.idle then
    evict_idle(now)
  end
  compute_shares(now)
  if P.period > 0 then
    window_expire(now)
  end
  local decay = 1
  if dt > 0 then
    decay = exp(-dt / P.horizon)
  end
  -- Written as compute_shares is (locals, kd stepping by D, math.min's own comparison: min(a, b)
  -- is b when b < a, else a).
  local S, N, NS, G, LVL, USE, SU, OD = S, N, NS, G, LVL, USE, SU, OD
  local capacity, effective = capacity, effective
  local rate, burst = P.rate, P.burst
  for d = 1, D do
    local level = S[G + d] + rate[d] * dt
    if level < burst[d] then
      S[G + d] = level
    else
      S[G + d] = burst[d]
    end
    local kd = d
    for k = 1, K do
      local cap = capacity[kd]
      local at_lvl = LVL + kd
      if S[N + k] == 0 then
        S[at_lvl] = cap
      else
        level = S[at_lvl] + effective[kd] * dt
        if level < cap then
          S[at_lvl] = level
        else
          S[at_lvl] = cap
        end
      end
      local at_use, at_su, at_od = USE + kd, SU + kd, OD + kd
      S[at_use] = S[at_use] * decay
      if S[NS + k] == 0 then
        S[at_su] = 0
      else
        S[at_su] = S[at_su] * decay
      end
      S[at_od] = S[at_od] * decay
      kd = kd + D
    end
  end
  if P.spent then
    hold_spent(now)
  end
end

-- NestedBuckets.refill: an L3 bucket refills at its rate ρ_q; its usage average decays.
-- (max and min written out as in compute_shares.)
local function refill(now, q)
  local dt = 0
  if now > q.last then
    dt = (now - q.last) / 1e6
    q.last = now
  end
  if dt > 0 then
    local level = q.lvl + q.rate * dt
    if level < q.cap then
      q.lvl = level
    else
      q.lvl = q.cap
    end
    local decay = exp(-dt / P.horizon)
    local use = q.use
    for d = 1, D do
      use[d] = use[d] * decay
    end
  end
end

-- NestedBuckets.equalisationRate: X*_k = min_d (eff_k,d − U_k,d) / D_k,d over the hungry queues,
-- at least all, the rate that fits every queue of the class (equal_split_rate(k), which the caller
-- has at hand).
local function equalisation_rate(k, all)
  local hungry_rate = huge
  local kd = (k - 1) * D + 1
  for _ = 1, D do
    local demand = S[HD + kd]
    if demand > 0 then
      local spare = effective[kd] - S[SU + kd]
      local rate = (spare > 0 and spare or 0) / demand
      if rate < hungry_rate then
        hungry_rate = rate
      end
    end
    kd = kd + 1
  end
  if all == huge then
    return 1 / P.horizon
  end
  if hungry_rate > all and hungry_rate ~= huge then
    return hungry_rate
  end
  return all
end

-- The state after advance(now), with the safe window loaded when there is one.
local function begin_step(now)
  -- The state, and the check for lost state (guards.lua explains 'started'): a present state key
  -- marks the target started; a missing one on a started target makes the first step create L1
  -- empty.
  local raw = call('GET', KEYS[2])
  if raw then
    if not P.started then
      call('HSET', KEYS[1], 'started', '1')
      P.started = true
    end
  elseif P.started then
    START_EMPTY = true
  end
  local saved = SAVED[KEYS[2]]
  if saved then
    SAVED[KEYS[2]] = nil
    SAVED_COUNT = SAVED_COUNT - 1
    TAKEN = saved
  end
  -- A state of another size (written by an older layout of this file) is not read: the target
  -- starts cold, as after a layout change.
  if raw and #raw == 8 * STATE_SIZE then
    if saved and saved[1] == raw then
      S = saved[2]
    else
      S = decode_state(raw)
    end
  end
  advance(now)
  if P.period > 0 and not W then
    load_window()
  end
  if START_EMPTY and W then
    -- The lost state's last period is unknown: the provider's current window may hold up to the
    -- whole allowance, admitted at any moment of it, so the restarted window counts it as spent
    -- now (guards.lua, lost state).
    window_add(now, P.allowance)
  end
end

local function end_step()
  local packed = struct_pack(P.state_format, unpack(S, 1, STATE_SIZE))
  call('SET', KEYS[2], packed)
  if SAVED_COUNT >= DECODED_MAX then
    SAVED, SAVED_COUNT = {}, 0
  end
  local entry = TAKEN or {}
  entry[1], entry[2] = packed, S
  SAVED[KEYS[2]] = entry
  SAVED_COUNT = SAVED_COUNT + 1
  if W then
    save_window()
  end
  if EARLIEST ~= EARLIEST_READ then
    if EARLIEST == huge then
      call('HDEL', KEYS[1], 'earliest')
    else
      call('HSET', KEYS[1], 'earliest', fmt(EARLIEST))
    end
  end
end
