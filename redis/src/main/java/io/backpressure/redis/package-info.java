/**
 * The gate's state shared on Redis, Valkey or a Redis Cluster, for many workers and processes:
 * every admission and release is one Lua script, so the caps hold across processes. Configure with
 * {@link io.backpressure.redis.RedisGateConfig}; open a {@link io.backpressure.redis.RedisGate}, or
 * a {@link io.backpressure.redis.ResilientRedisGate} that keeps deciding while Redis is away;
 * {@link io.backpressure.redis.RedisGates} serves many targets over one connection and {@link
 * io.backpressure.redis.RedisPolicyStore} reads and replaces stored policies. Messages and {@code
 * toString}s never show a URL's credentials.
 */
package io.backpressure.redis;
