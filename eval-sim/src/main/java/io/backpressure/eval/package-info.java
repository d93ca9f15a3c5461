/**
 * The evaluation: workloads run against configurations (no gate, Temporal's own limits, a gateway,
 * this gate), measured and reported. The simulator and reports are in {@code
 * backpressure-eval-sim}; the commands ({@code ./backpressure eval}, {@code demo}, {@code
 * dev-server}) and the real mode in {@code backpressure-eval}. The package spans both modules; this
 * description is in the lower one. Not a library API.
 */
package io.backpressure.eval;
