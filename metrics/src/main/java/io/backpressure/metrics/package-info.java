/**
 * Micrometer meters for any gate: {@link io.backpressure.metrics.MeteredGate} wraps a gate and
 * records admissions, costs, deferrals, latency and bucket levels (names in {@link
 * io.backpressure.metrics.MeterNames}); {@link io.backpressure.metrics.PrometheusEndpoint} is a
 * small scrape endpoint for long-running commands.
 */
package io.backpressure.metrics;
