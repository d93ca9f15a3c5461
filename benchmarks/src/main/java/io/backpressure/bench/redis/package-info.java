/**
 * Load generators and script profiles for the Redis backend ({@code ./backpressure bench redis}).
 */
package io.backpressure.bench.redis;
