-- One release with the rebuilt rule: FairRule.release behind InMemoryGate.release's idempotency, as
-- one atomic step. Runs after nested_buckets.lua, the schema, fair_rule.lua, guards.lua and
-- limits.lua (prepended by the client).
--
-- KEYS: 1 config, 2 state, 3 queues, 4 seen, 5 window, 6 resting (see fair_rule.lua), 7 the grant's
--       key, 8..10 when the target has limits: the limits hash, the grant's limit record, the leases
-- ARGV: 1 the policy version, 2 the time in µs ('' = the server's TIME), 3 the tenant's weight w_t,
--       4.. the actual cost per dimension; with the limits' keys, then the adaptive concurrency
--       limit's min (0: none), max and latency target in µs
-- Returns as release.lua does.

-- The grant record fair_admit.lua lays out (FAIR_GRANT_AT there): five fields, then per dimension
-- the debit, the estimate and the window entry's id.
local GRANT_SIZE = 5

-- The grant and the actual cost, filled afresh at every call instead of built (in the function
-- library they outlive the call, so a call allocates neither).
local RELEASED = { grant = { debit = {}, estimate = {}, entries = {} }, actual = {} }

local config, live = load_config(ARGV[1])
if not config then
  return { 2, live }
end
local now = current_time(ARGV[2])
-- Idempotency: the grant is consumed by its first release (one GETDEL in the function library).
local raw
if IN_LIBRARY then
  raw = call('GETDEL', KEYS[7])
else
  raw = call('GET', KEYS[7])
  if raw then
    call('DEL', KEYS[7])
  end
end
if not raw then
  return { 0 }
end
local g = cmsgpack.unpack(raw)
if g[3] <= now or g[4] ~= P.generation then
  return { 0 }
end
TENANT_WEIGHT = NUMBERS[ARGV[3]] or number(ARGV[3])
local grant, actual = RELEASED.grant, RELEASED.actual
grant.tenant, grant.priority, grant.paidShare = g[1], g[2], g[5]
for d = 1, D do
  grant.debit[d], grant.estimate[d], grant.entries[d] = g[GRANT_SIZE + d], g[GRANT_SIZE + D + d],
      g[GRANT_SIZE + 2 * D + d]
  actual[d] = ARGV[3 + d] * 1
end
if #KEYS > 7 then
  limits_release(actual, KEYS[8], KEYS[9], KEYS[10], now, 3 + D)
end
-- Java's release does not follow a running ramp: the caps stay those of the last admission.
FairRule.load(now, not P.ramp)
FairRule.release(now, grant, actual)
FairRule.save()
return { 1 }
