-- The admission script's phases, each timed over many repetitions inside one call (ScriptProfile).
-- Runs after nested_buckets.lua and the functions of admit.lua (the client appends this file in
-- place of admit.lua's main body), on a target whose queues are active, with the same KEYS and
-- ARGV as an admission plus one last argument: the repetitions per phase.
--
-- Returns {phase name, µs per repetition as a decimal string, ...}; a name indented by two spaces
-- is a part of the phase after it. Each phase repeats exactly
-- what one admission does in that phase, in ten blocks; its time is TIME before and after the
-- fastest block, over its repetitions, less the cost of the empty loop. TIME is wall-clock time:
-- the fastest block is the one the server was least often taken off its core in. The clock advances one µs per repetition, so every
-- refill runs its full arithmetic. Writes are those of real admissions (caps that never bind).
local reps = tonumber(table.remove(ARGV))
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local out = {}
local now = clock()
local BLOCKS = 10
local function timed(f)
  local block = max(1, math.floor(reps / BLOCKS))
  local fastest = math.huge
  for _ = 1, BLOCKS do
    local start = clock()
    for _ = 1, block do
      now = now + 1
      f()
    end
    fastest = min(fastest, (clock() - start) / block)
  end
  return fastest
end
local empty = timed(function() end)
local function phase(name, f)
  out[#out + 1] = name
  out[#out + 1] = string.format('%.2f', max(0, timed(f) - empty))
end

local tenant = ARGV[3]
local k = tonumber(ARGV[4]) + 1
local weight = tonumber(ARGV[5])
local field = (k - 1) .. ':' .. tenant
load_config(ARGV[1])
local estimate = {}
for d = 1, D do
  estimate[d] = tonumber(ARGV[8 + d])
end
S = decode_state(redis.call('GET', KEYS[2]))
local q = load_queue(field)

phase('time: TIME (once, for the give-up guard and the clock)', function() current_time('') end)
local params = redis.call('HGET', KEYS[1], 'params')
phase('  decode the parameters (EVALSHA; FCALL once)', function() decode_params(params) end)
phase('config: read (HMGET; lost-state flag too)', function() load_config(ARGV[1]) end)
phase('state: GET, unpack (an FCALL reuses the state it saved instead)', function()
  S = decode_state(redis.call('GET', KEYS[2]))
end)
phase('  evict idle queues', function()
  if EARLIEST < now - P.idle then
    evict_idle(now)
  end
end)
phase('  class shares', function() compute_shares(now) end)
phase('advance: evict, shares, refill L1 and L2', function() advance(now) end)
phase('  queue decode (HGET, unpack)', function() load_queue(field) end)
phase('  seen index (ZADD, once per stretch)', function() index_seen(field, now) end)
phase('  queue encode (pack, HSET)', function() save_queue(field, q) end)
phase('decision: touch + admit, with queue load and save', function()
  local b = BOOKING
  b.paid, b.share, b.ready, b.exp, b.lined, b.overdue = false, 0, 0, now + P.grant_ttl, false, false
  admit(now, field, k, weight, estimate, nil, b, -1)
end)
phase('state: encode (pack, SET)', function()
  redis.call('SET', KEYS[2], struct.pack(P.state_format, unpack(S, 1, STATE_SIZE)))
end)
phase('waiting line: purge (LINDEX, unless known empty)', function() purge_waiting(now) end)
phase('grant: encode and SET PX', function()
  local grant, pos = GRANT, GRANT_AT
  grant[pos.tenant], grant[pos.class], grant[pos.expires], grant[pos.generation] = tenant, k, now + P.grant_ttl, P.generation
  grant[pos.share], grant[pos.entry], grant[pos.entry_at] = 0, 0, now
  for d = 1, D do
    grant[pos.size + d] = estimate[d]
    grant[pos.size + D + d] = estimate[d]
  end
  redis.call('SET', KEYS[6], cmsgpack.pack(grant), 'PX', P.grant_px_text)
end)
phase('reply: format the debit', function()
  local reply = ADMITTED
  reply[1], reply[2] = 0, now
  for d = 1, D do
    reply[2 + d] = fmt(estimate[d])
  end
end)
redis.call('DEL', KEYS[6])
return out
