package io.backpressure.redis;

import io.backpressure.core.EpochClock;
import java.util.Objects;

/**
 * Where a Redis gate's decision time comes from. Every bucket refills by elapsed time, so all the
 * processes that share a target must agree on the clock.
 *
 * <ul>
 *   <li>{@link #server()} (the default): the scripts read the server's {@code TIME}. One clock for
 *       every worker; worker clock skew cannot matter.
 *   <li>{@link #caller(EpochClock)}: the worker sends its own time with every call, for managed
 *       services that forbid {@code TIME} in scripts (and for tests in virtual time). The
 *       trade-off: a worker whose clock runs ahead by {@code s} seconds refills the buckets early,
 *       so for as long as it is ahead the target can admit up to {@code C_d · s} more than its cap
 *       (a worker behind refills nothing until the others' time passes its own, which errs on the
 *       strict side). Keep clocks within a millisecond or two with NTP or chrony, and use the same
 *       time source on every worker of a target.
 * </ul>
 *
 * <p>A time source is a value that any number of gates and threads may share; a caller clock must
 * itself be safe to read from any thread.
 */
public sealed interface TimeSource permits TimeSource.Server, TimeSource.Caller {

  /** The Redis server's {@code TIME}, read inside each script. */
  record Server() implements TimeSource {}

  /**
   * The caller's clock, sent with each call.
   *
   * @param clock nanoseconds on an epoch every worker of the target shares (Unix time for real
   *     deployments; any origin for a single process in virtual time)
   */
  record Caller(EpochClock clock) implements TimeSource {
    public Caller {
      Objects.requireNonNull(clock, "clock");
    }
  }

  /** The server's clock: the default, and the safe choice. */
  static TimeSource server() {
    return new Server();
  }

  /** The caller's clock; see the class comment for the clock-skew trade-off. */
  static TimeSource caller(EpochClock clock) {
    return new Caller(clock);
  }

  /** The caller's wall clock (Unix time in nanoseconds, microsecond resolution or better). */
  static TimeSource wallClock() {
    return new Caller(EpochClock.unix());
  }
}
