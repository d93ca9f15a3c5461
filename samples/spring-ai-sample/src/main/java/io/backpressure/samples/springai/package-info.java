/** A Spring AI application whose model calls share one provider's limits through the gate. */
package io.backpressure.samples.springai;
