-- One worker's heartbeat: marks it alive until now + TTL and answers how many workers of the
-- target are alive (a LOCAL fallback splits the caps between them while Redis is unreachable).
--
-- KEYS: 1 the target's workers zset (member: worker id, score: alive until, server µs)
-- ARGV: 1 this worker's id, 2 the TTL in µs
-- Returns {the number of live workers, this one included}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
redis.call('ZADD', KEYS[1], string.format('%.17g', now + tonumber(ARGV[2])), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.17g', now))
-- The set goes by itself once no worker has said it is alive for a TTL.
redis.call('PEXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2]) / 1000))
return { redis.call('ZCARD', KEYS[1]) }
