package io.backpressure.core;

import java.time.Duration;
import java.util.Map;

/**
 * A consistent copy of a gate's buckets at one instant, for metrics and inspection ({@code admin
 * show}); both the in-memory and the Redis backend return it. Levels and rates are in each
 * dimension's own units (requests, tokens). The gate keeps no reference to a snapshot it returned,
 * so it may be read from any thread.
 *
 * @param global L1 level per dimension
 * @param classes L2 level per class and dimension
 * @param admittedRates recently admitted units per second, per class and dimension (an average over
 *     the share horizon, net of reconciliation)
 * @param activeQueues active queues per class
 * @param queueAges per class, how long the oldest call still waiting for its turn has waited since
 *     its first attempt (zero when none waits), as of the gate's last admission step; a deferred
 *     call counts as waiting until it is admitted, expires, or its booking is forgotten after the
 *     grant TTL
 */
public record GateLevels(
    Map<String, Double> global,
    Map<String, Map<String, Double>> classes,
    Map<String, Map<String, Double>> admittedRates,
    Map<String, Integer> activeQueues,
    Map<String, Duration> queueAges) {}
