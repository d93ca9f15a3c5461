-- One release: NestedBuckets.release behind InMemoryGate.release's idempotency, as one atomic step.
-- Runs after nested_buckets.lua (prepended by the client).
--
-- KEYS: 1 config, 2 state, 3 queues, 4 seen, 5 window (see nested_buckets.lua), 6 the grant's key
-- ARGV: 1 the policy version the caller read the actual cost against, 2 the time in µs ('' = the
--       server's TIME), 3.. the actual cost per dimension, in the policy's order
-- Returns {1} applied; {0} the grant was already released, expired, or belongs to an earlier
-- layout of the policy (a release that changes nothing); {2, live version} the caller's policy
-- version is stale (nothing changed, the grant is kept).

-- The tables the main body below fills afresh at every call (in the function library they outlive
-- the call, so a call allocates none of them): the grant's debit and estimate, the actual cost.
local RELEASED_DEBIT, RELEASED_ESTIMATE, RELEASED_ACTUAL = {}, {}, {}

local config, live = load_config(ARGV[1])
if not config then
  return { 2, live }
end
local now = current_time(ARGV[2])
follow_ramp(now)

-- Idempotency: the grant is consumed by its first release. A grant is {tenant, class, expires at,
-- generation, paid share, window entry id (0: none), window entry time, then per dimension the
-- debit and the estimate}.
local raw = redis.call('GET', KEYS[6])
if not raw then
  return { 0 }
end
redis.call('DEL', KEYS[6])
local grant = cmsgpack.unpack(raw)
if grant[3] <= now or grant[4] ~= P.generation then
  return { 0 }
end
local tenant, k, paid_share, entry_id, entry_at = grant[1], grant[2], grant[5], grant[6], grant[7]
local debit, estimate, actual = RELEASED_DEBIT, RELEASED_ESTIMATE, RELEASED_ACTUAL
for d = 1, D do
  debit[d] = grant[7 + d]
  estimate[d] = grant[7 + D + d]
  actual[d] = tonumber(ARGV[2 + d])
end

-- NestedBuckets.release: debit − actual goes back to (or, when negative, is taken from) L1, L2, the
-- safe window's entry (while it is inside the window) and the usage averages; L3 gets back the
-- difference between the share paid and the share the call really had; the queue's estimate
-- correction and its class's (that of its queues with no release of their own) learn from actual −
-- estimate, as a running mean until LEARNING_RELEASES releases, then an exponential average. Levels
-- may go negative; refill pays the overshoot back.
begin_step(now)
local field = (k - 1) .. ':' .. tenant
local q = load_queue(field)
if q then
  refill(now, q)
end
local entry
if W and entry_id > 0 and entry_at > now - P.period then
  entry = load_entry(entry_id)
end
for d = 1, D do
  local kd = at(k, d)
  local back = debit[d] - actual[d]
  if entry then
    entry[1 + d] = entry[1 + d] + -back
    W.sum[d] = W.sum[d] + -back
  end
  S[G + d] = min(P.burst[d], S[G + d] + back)
  S[LVL + kd] = min(capacity[kd], S[LVL + kd] + back)
  local used = back / P.horizon
  S[USE + kd] = max(0, S[USE + kd] - used)
  if q then
    q.use[d] = max(0, q.use[d] - used)
    if q.sat then
      S[SU + kd] = max(0, S[SU + kd] - used)
    end
    q.corr[d] = q.corr[d] + learning_weight(q.rel) * (max(0, actual[d] - estimate[d]) - q.corr[d])
  end
  local error = max(0, actual[d] - estimate[d])
  S[CC + kd] = S[CC + kd] + learning_weight(S[CR + k]) * (error - S[CC + kd])
end
S[CR + k] = min(LEARNING_RELEASES, S[CR + k] + 1)
if q then
  q.rel = min(LEARNING_RELEASES, q.rel + 1)
end
if entry then
  save_entry(entry_id, entry)
end
if q then
  q.lvl = min(q.cap, q.lvl + paid_share - share(actual))
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
