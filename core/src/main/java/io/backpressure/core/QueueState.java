package io.backpressure.core;

/**
 * The tenant-share (L3) bucket of one active queue {@code (tenant, class)}, as of the queue's last
 * step: what an operator or a test inspects to see a queue's place in line.
 *
 * <p>A copy, safe to read from any thread.
 *
 * @param level shares banked (negative: the debt of the calls booked and not yet due), in seconds
 *     of the whole cap
 * @param capacity the most the bucket banks, in the same unit
 * @param rate the refill rate {@code ρ_q = w_t · X*_k}, shares per second
 * @param weight the tenant weight {@code w_t} it was last touched with
 * @param updatedMicros the time of the queue's last refill, µs on the gate's clock
 */
public record QueueState(
    double level, double capacity, double rate, double weight, long updatedMicros) {}
