/**
 * The evaluation's real mode: Temporal, the mock provider over HTTP, worker processes, Redis and
 * injected faults, measured with the same metrics as the simulator.
 */
package io.backpressure.eval.real;
