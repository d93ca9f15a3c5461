-- One admission attempt with the rebuilt rule: FairRule.admit plus the grant and booking bookkeeping
-- of InMemoryGate.admit, as one atomic step. Runs after nested_buckets.lua (the parameters, config,
-- time and ramp), the schema, fair_rule.lua, guards.lua and limits.lua (prepended by the client).
--
-- KEYS: 1 config, 2 state, 3 queues, 4 seen, 5 window, 6 resting (see fair_rule.lua), 7 the grant key
--       for this call's id, 8 the booking key for this call's id, 9 the waiting line of the call's
--       class, 10 the booking key the caller presents (only when it presents one)
-- ARGV and replies: as admit.lua's.

-- The records stored under a booking key and a grant key (cmsgpack arrays), laid out here and
-- nowhere else; the per-dimension values (debit, estimate, window entry) come last.
local FAIR_BOOKING_AT = positions({ 'tenant', 'class', 'expires', 'generation', 'paid', 'lined', 'paidShare',
  'classStart', 'classPaid', 'queueStart', 'readyAt' })
local FAIR_GRANT_AT = positions({ 'tenant', 'class', 'expires', 'generation', 'paidShare' })

-- WaitingLines.purge, as purge_waiting in admit.lua: drops the calls at the head of this class's line
-- (KEYS[9]) that no longer wait, and marks the line empty in the config hash ('w:<class>') when it is.
local function purge_waiting(now)
  while true do
    local head = call('LINDEX', KEYS[9], 0)
    if not head then
      call('HSET', KEYS[1], 'w:' .. ARGV[4], '0')
      return
    end
    local raw = call('GET', string.match(head, '^(.*)|'))
    if raw then
      local b = cmsgpack.unpack(raw)
      if b[FAIR_BOOKING_AT.expires] > now and b[FAIR_BOOKING_AT.generation] == P.generation then
        return
      end
    end
    call('LPOP', KEYS[9])
  end
end

-- The tables the main body below fills afresh at every call instead of building new ones (in the
-- function library they outlive the call, so a call allocates none of them): the estimate, the
-- reservation, the booking with its window entries and the debits and estimates of a presented
-- one, the booking record a deferral stores, the grant record and the admitted reply.
local REUSED = { estimate = {}, reserve = {}, booking = {}, entries = {}, debit = {}, estimates = {},
  stored = {}, grant = {}, reply = {} }

-- Empties t from index n + 1 on: a policy of fewer dimensions than the last call's leaves no values
-- of that call behind.
local function trim(t, n)
  for i = #t, n + 1, -1 do
    t[i] = nil
  end
end

local config, live = load_config(ARGV[1], 'w:' .. ARGV[4], true)
if not config then
  return { 2, live }
end
local lined = P.extra ~= '0'
local now = current_time(ARGV[2])
if P.ramp then
  follow_ramp(now)
end
local tenant = ARGV[3]
local k = (NUMBERS[ARGV[4]] or number(ARGV[4])) + 1
TENANT_WEIGHT = NUMBERS[ARGV[5]] or number(ARGV[5])
local max_wait = NUMBERS[ARGV[8]] or number(ARGV[8])
local estimate = REUSED.estimate
local reserve
for d = 1, D do
  estimate[d] = ARGV[8 + d] * 1
end
trim(estimate, D)
if ARGV[7] == '1' then
  reserve = REUSED.reserve
  trim(reserve, D)
  for d = 1, D do
    reserve[d] = ARGV[8 + D + d] * 1
  end
end

-- InMemoryGate.admit: a presented booking counts only if it is live, of this generation of the
-- policy's layout, and of this same queue; otherwise the call starts afresh.
local booking = REUSED.booking
booking.paid, booking.lined, booking.classPaid = false, false, false
booking.paidShare, booking.classStart = 0, 0
booking.queueStart, booking.readyAt, booking.expiresAt = 0, 0, now + P.grant_ttl
booking.debit, booking.estimate, booking.entries = nil, nil, REUSED.entries
for d = 1, D do
  REUSED.entries[d] = 0
end
trim(REUSED.entries, D)
local fresh = true
if ARGV[6] == '1' then
  local raw = call('GET', KEYS[10])
  if raw then
    local b, pos = cmsgpack.unpack(raw), FAIR_BOOKING_AT
    if b[pos.expires] > now and b[pos.generation] == P.generation and b[pos.tenant] == tenant
        and b[pos.class] == k then
      fresh = false
      booking.expiresAt = b[pos.expires]
      booking.paid, booking.lined, booking.classPaid = b[pos.paid] == 1, b[pos.lined] == 1, b[pos.classPaid] == 1
      booking.paidShare, booking.classStart, booking.queueStart = b[pos.paidShare], b[pos.classStart], b[pos.queueStart]
      booking.readyAt = b[pos.readyAt]
      booking.debit, booking.estimate = REUSED.debit, REUSED.estimates
      trim(REUSED.debit, D)
      trim(REUSED.estimates, D)
      for d = 1, D do
        booking.debit[d], booking.estimate[d] = b[pos.size + d], b[pos.size + D + d]
        booking.entries[d] = b[pos.size + 2 * D + d]
      end
    end
  end
end

-- What the provider said (EffectiveCaps.stoppedUntil and pausedUntil, read by load_config), before
-- the limits and the rule.
local stopped = P.stop and tonumber(P.stop)
if stopped and stopped > now then
  return { 8, stopped, now }
end
local paused = P.pause and tonumber(P.pause)
if paused and paused > now then
  return { 5, paused - now, now }
end

-- The limits (limits.lua), when the client sent a plan; their keys are the step's last three.
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

FairRule.load(now, true)
local wait = FairRule.admit(now, tenant, k, estimate, reserve, booking, max_wait)
FairRule.save()
if wait < 0 then
  if not fresh then
    call('DEL', KEYS[10])
  end
  if lined then
    purge_waiting(now)
  end
  return { 3, -wait, now }
end
if wait > 0 then
  local b, pos = REUSED.stored, FAIR_BOOKING_AT
  b[pos.tenant], b[pos.class], b[pos.expires], b[pos.generation] = tenant, k, booking.expiresAt, P.generation
  b[pos.paid], b[pos.lined], b[pos.classPaid] = booking.paid and 1 or 0, booking.lined and 1 or 0,
      booking.classPaid and 1 or 0
  b[pos.paidShare], b[pos.classStart], b[pos.queueStart] = booking.paidShare, booking.classStart, booking.queueStart
  b[pos.readyAt] = booking.readyAt
  for d = 1, D do
    b[pos.size + d], b[pos.size + D + d], b[pos.size + 2 * D + d] =
        booking.debit[d], booking.estimate[d], booking.entries[d]
  end
  trim(b, pos.size + 3 * D)
  local stored = cmsgpack.pack(b)
  if fresh then
    call('SET', KEYS[8], stored, 'PX', P.grant_px_text)
    call('RPUSH', KEYS[9], KEYS[8] .. '|' .. fmt(now))
    if not lined then
      call('HDEL', KEYS[1], 'w:' .. ARGV[4])
    end
    purge_waiting(now)
    return { 1, wait, now, 0 }
  end
  call('SET', KEYS[10], stored, 'KEEPTTL')
  if lined then
    purge_waiting(now)
  end
  return { 1, wait, now, 1 }
end
if not fresh then
  call('DEL', KEYS[10])
end
if lined then
  purge_waiting(now)
end
local grant, pos = REUSED.grant, FAIR_GRANT_AT
grant[pos.tenant], grant[pos.class], grant[pos.expires], grant[pos.generation] = tenant, k, now + P.grant_ttl,
    P.generation
grant[pos.paidShare] = booking.paidShare
local reply = REUSED.reply
reply[1], reply[2] = 0, now
-- Each debit as admit.lua replies it: a positive whole number below 2^53 as that integer, any other
-- as its exact decimal.
for d = 1, D do
  local x = booking.debit[d]
  grant[pos.size + d] = x
  grant[pos.size + D + d] = booking.estimate[d]
  grant[pos.size + 2 * D + d] = booking.entries[d]
  if x > 0 and x < 9007199254740992 and x % 1 == 0 then
    reply[2 + d] = x
  else
    reply[2 + d] = fmt(x)
  end
end
trim(grant, pos.size + 3 * D)
trim(reply, 2 + D)
if limited then
  limits_debit(limits_at, now, KEYS[#KEYS - 2], KEYS[#KEYS - 1], KEYS[#KEYS], KEYS[7])
end
call('SET', KEYS[7], cmsgpack.pack(grant), 'PX', P.grant_px_text)
return reply
