package io.backpressure.redis;

/**
 * The keys of one target. Every key carries the target in a hash tag ({@code {target}}), so a Redis
 * Cluster keeps a target's keys in one slot (every script touches one node) and spreads targets
 * over the shards.
 *
 * <pre>
 *   bp:{openai/gpt-4o}:config    hash    version, generation, layout, params, policy (JSON), rule
 *   bp:{openai/gpt-4o}:state     string  L1 and L2 levels, class sums, tails, counts (cmsgpack)
 *   bp:{openai/gpt-4o}:queues    hash    "&lt;class&gt;:&lt;tenant&gt;" → one L3 queue (cmsgpack)
 *   bp:{openai/gpt-4o}:seen      zset    the same fields by last-seen time (idle eviction)
 *   bp:{openai/gpt-4o}:window    hash    with a safe window: the admissions of the last period
 *   bp:{openai/gpt-4o}:resting   zset    the rebuilt rule's resting queues by last-seen time
 *   bp:{openai/gpt-4o}:g:&lt;id&gt;    string  one unreleased grant, PX = grant TTL
 *   bp:{openai/gpt-4o}:b:&lt;id&gt;    string  one deferred call's booking, PX = grant TTL
 *   bp:{openai/gpt-4o}:feedback  string  what feedback.lua learned: E_d, cooldowns, outside traffic (cmsgpack)
 *   bp:{openai/gpt-4o}:w:&lt;k&gt;     list    class k's deferred calls by first attempt (queue age)
 *   bp:{openai/gpt-4o}:limits    hash    with limits: calendar and quota counters, expired leases
 *   bp:{openai/gpt-4o}:leases    zset    with a concurrency limit: grant key → lease expiry (µs)
 *   bp:{openai/gpt-4o}:lg:&lt;id&gt;   string  with limits: one unreleased grant's counters, PX = grant TTL
 *   bp:{openai/gpt-4o}:audit     stream  the audit trail of admin changes: at, actor, action, field, before, after
 * </pre>
 */
record Keys(String config, String state, String queues, String seen, String window, String base) {

  static Keys of(String prefix, String target) {
    String base = prefix + ":{" + target + "}:";
    return new Keys(
        base + "config", base + "state", base + "queues", base + "seen", base + "window", base);
  }

  /** The keys every step reads and writes, in the order the scripts expect them. */
  String[] step(String... more) {
    String[] keys = new String[5 + more.length];
    keys[0] = config;
    keys[1] = state;
    keys[2] = queues;
    keys[3] = seen;
    keys[4] = window;
    System.arraycopy(more, 0, keys, 5, more.length);
    return keys;
  }

  /**
   * The keys every step of the rebuilt rule reads and writes (fair_rule.lua): those of {@link
   * #step} and the resting queues, then {@code more}.
   */
  String[] fairStep(String... more) {
    String[] keys = new String[6 + more.length];
    System.arraycopy(step(), 0, keys, 0, 5);
    keys[5] = base + "resting";
    System.arraycopy(more, 0, keys, 6, more.length);
    return keys;
  }

  String grant(String id) {
    return base + "g:" + id;
  }

  /** What the provider's answers taught the target (feedback.lua). */
  String feedback() {
    return base + "feedback";
  }

  /** The limits' counters and expired-lease count (limits.lua). */
  String limits() {
    return base + "limits";
  }

  /** The concurrency leases in force, by expiry (limits.lua). */
  String leases() {
    return base + "leases";
  }

  /** The audit trail of the target's administrative changes (RedisPolicyStore). */
  String audit() {
    return base + "audit";
  }

  /** The counters of the unreleased grant {@code id}, for its release (limits.lua). */
  String limitGrant(String id) {
    return base + "lg:" + id;
  }

  String booking(String id) {
    return base + "b:" + id;
  }

  /** The waiting line of class {@code k} (0 = highest). */
  String waiting(int k) {
    return base + "w:" + k;
  }
}
