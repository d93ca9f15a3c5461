-- Guards that run before the admission or release step (the client puts this file between
-- nested_buckets.lua and admit.lua or release.lua). They leave the step's own KEYS and ARGV as the
-- step expects them.
--
begin_call()

-- 1. Give-up deadline. The client appends one argument: the server time (µs) after which it has
--    given up on this call ('' = none, e.g. with the caller's clock). It is removed here, so ARGV is
--    the step's own. A call that starts later than that returns {4} and changes nothing: when a
--    stalled server (SIGSTOP, a long fork) runs the calls its clients timed out on, none of them
--    debits a bucket, stores a booking or a grant, or moves a tail ("ghost admissions").
local last = #ARGV
local give_up = ARGV[last]
ARGV[last] = nil
if give_up ~= '' then
  local t = call('TIME')
  SERVER_NOW = (NUMBERS[t[1]] or number(t[1])) * 1000000 + t[2] * 1
  if SERVER_NOW > give_up * 1 then
    return { 4 }
  end
end

-- 2. Lost state. The config hash records 'started' once the target has state (marked by the first
--    step that finds the state key present). When the state key is missing although the target had
--    state (it was flushed, evicted or lost in a restart without persistence, and a gate wrote the
--    policy back with 'started' set), the buckets restart empty rather than full: the provider's
--    current window may already hold what the lost state had admitted, and full buckets would add
--    a burst on top. Under a safe window the restarted window also counts its whole allowance as
--    admitted at the restart, so nothing is admitted for one period: empty buckets alone still
--    refill into a provider window whose lost part may hold a whole burst admitted just before the
--    loss (measured: 12 admissions in the half second before a FLUSHALL and 5 in the half second
--    after, 17 against a cap of 15). After that period the buckets have refilled and gating goes on
--    at the cap. A new target, or a new layout of its policy (apply.lua clears 'started'),
--    starts full, as the paper's buckets do. The step checks this where it reads the config and
--    the state anyway (load_config and begin_step in nested_buckets.lua), at no extra command.
