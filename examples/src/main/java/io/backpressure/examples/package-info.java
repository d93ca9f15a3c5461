/**
 * The README's getting-started examples, each a runnable {@code main}: a gate in memory ({@link
 * io.backpressure.examples.InMemoryQuickstart}), on Redis ({@link
 * io.backpressure.examples.RedisQuickstart}) and on Temporal ({@link
 * io.backpressure.examples.TemporalQuickstart}). The README shows their code as the build compiles
 * it.
 */
package io.backpressure.examples;
