-- One release: NestedBuckets.release behind InMemoryGate.release's idempotency, as one atomic step.
-- Runs after nested_buckets.lua (prepended by the client).
--
-- KEYS: 1 config, 2 state, 3 queues, 4 seen, 5 window (see nested_buckets.lua), 6 the grant's key,
--       7..9 when the target has limits: the limits hash, the grant's limit record, the leases
-- ARGV: 1 the policy version the caller read the actual cost against, 2 the time in µs ('' = the
--       server's TIME), 3.. the actual cost per dimension, in the policy's order; with the limits'
--       keys, then the adaptive concurrency limit's min (0: none), max and latency target in µs
-- Returns {1} applied; {0} the grant was already released, expired, or belongs to an earlier
-- layout of the policy (a release that changes nothing); {2, live version} the caller's policy
-- version is stale (nothing changed, the grant is kept).

-- The tables the main body below fills afresh at every call (in the function library they outlive
-- the call, so a call allocates none of them): the grant's debit and estimate, the actual cost.
local RELEASED_DEBIT, RELEASED_ESTIMATE, RELEASED_ACTUAL = {}, {}, {}

-- The start of a queue's field, "<class index from 0>:", by the grant's class k, made once per
-- class: a number in a concatenation is formatted with '%.14g' at every use.
local FIELD_PREFIX = setmetatable({}, { __index = function(prefixes, k)
  local prefix = (k - 1) .. ':'
  prefixes[k] = prefix
  return prefix
end })

local config, live = load_config(ARGV[1])
if not config then
  return { 2, live }
end
local now = current_time(ARGV[2])
if P.ramp then
  follow_ramp(now)
end

-- Idempotency: the grant is consumed by its first release. Its fields are laid out by GRANT_AT
-- (nested_buckets.lua).
local raw
if IN_LIBRARY then
  raw = call('GETDEL', KEYS[6])
else
  raw = call('GET', KEYS[6])
  if raw then
    call('DEL', KEYS[6])
  end
end
if not raw then
  return { 0 }
end
local grant, pos = cmsgpack.unpack(raw), GRANT_AT
if grant[pos.expires] <= now or grant[pos.generation] ~= P.generation then
  return { 0 }
end
local tenant, k, paid_share = grant[pos.tenant], grant[pos.class], grant[pos.share]
local entry_id, entry_at = grant[pos.entry], grant[pos.entry_at]
local debit, estimate, actual = RELEASED_DEBIT, RELEASED_ESTIMATE, RELEASED_ACTUAL
-- NestedBuckets.ran: the call ran when the provider counted something of every dimension it was
-- estimated to use; a refused or unsent call teaches the corrections nothing.
local ran = true
for d = 1, D do
  debit[d] = grant[pos.size + d]
  estimate[d] = grant[pos.size + D + d]
  actual[d] = ARGV[2 + d] * 1
  if estimate[d] > 0 and actual[d] <= 0 then
    ran = false
  end
end
-- The limits (limits.lua): the grant's counters reconciled, its lease given back, when the client
-- passed their keys (KEYS[7..9]).
if #KEYS > 6 then
  limits_release(actual, KEYS[7], KEYS[8], KEYS[9], now, 2 + D)
end

-- NestedBuckets.release: debit − actual goes back to (or, when negative, is taken from) L1, L2, the
-- safe window's entry (while it is inside the window) and the usage averages; L3 gets back the
-- difference between the share paid and the share the call really had; the queue's estimate
-- correction and its class's (that of its queues with no release of their own) learn from actual −
-- estimate, as a running mean until LEARNING_RELEASES releases, then an exponential average, when
-- the call ran. Levels may go negative; refill pays the overshoot back.
begin_step(now)
local field = FIELD_PREFIX[k] .. tenant
local q = load_queue(field)
if q then
  refill(now, q)
end
local entry
if W and entry_id > 0 and entry_at > now - P.period then
  entry = load_entry(entry_id)
end
-- The per-dimension loop compares where it would call math.min and math.max, as compute_shares
-- does (min(a, b) is b when b < a, else a; max(0, x) is x when x > 0, else 0).
local burst, horizon = P.burst, P.horizon
local kd = (k - 1) * D + 1
for d = 1, D do
  local back = debit[d] - actual[d]
  if entry then
    entry[1 + d] = entry[1 + d] + -back
    W.sum[d] = W.sum[d] + -back
  end
  local level = S[G + d] + back
  S[G + d] = level < burst[d] and level or burst[d]
  level = S[LVL + kd] + back
  S[LVL + kd] = level < capacity[kd] and level or capacity[kd]
  local used = back / horizon
  local left = S[USE + kd] - used
  S[USE + kd] = left > 0 and left or 0
  if q then
    left = q.use[d] - used
    q.use[d] = left > 0 and left or 0
    if q.sat then
      left = S[SU + kd] - used
      S[SU + kd] = left > 0 and left or 0
    end
  end
  kd = kd + 1
end
-- NestedBuckets.learn, when the call ran: the two learning weights, which the loop does not
-- change, are taken once; min(LEARNING_RELEASES, n + 1) as the loop above writes min.
if ran then
  local queue_weight = q and learning_weight(q.rel)
  local class_weight = learning_weight(S[CR + k])
  kd = (k - 1) * D + 1
  for d = 1, D do
    local error = actual[d] - estimate[d]
    error = error > 0 and error or 0
    if q then
      q.corr[d] = q.corr[d] + queue_weight * (error - q.corr[d])
    end
    S[CC + kd] = S[CC + kd] + class_weight * (error - S[CC + kd])
    kd = kd + 1
  end
  local releases = S[CR + k] + 1
  S[CR + k] = releases < LEARNING_RELEASES and releases or LEARNING_RELEASES
  if q then
    releases = q.rel + 1
    q.rel = releases < LEARNING_RELEASES and releases or LEARNING_RELEASES
  end
end
if entry then
  save_entry(entry_id, entry)
end
if q then
  local level = q.lvl + paid_share - share(actual)
  q.lvl = level < q.cap and level or q.cap
  if q.out > 0 then
    q.out = q.out - 1
    if q.out == 0 then
      released(now, field, q)
    end
  end
  save_queue(field, q)
end
end_step()
return { 1 }
