package io.backpressure.redis;

/**
 * The core's conformance suite's jqwik properties on the Redis state, as {@link
 * RedisGateConformanceTest} builds it; that class runs the suite's JUnit tests. Split so that the
 * module's two test JVMs run the two halves side by side instead of one after the other; the
 * properties run one after another, as jqwik runs them.
 */
@OneEngine("jqwik")
class RedisGateConformancePropertiesTest extends RedisGateConformanceTest {}
