/**
 * The discrete-event simulator: each configuration modelled once, driving the real gate in virtual
 * time against the mock provider's limiters, deterministic for a seed.
 */
package io.backpressure.eval.sim;
