/** JMH benchmarks of the admission path and the {@code ./backpressure bench} command. */
package io.backpressure.bench;
