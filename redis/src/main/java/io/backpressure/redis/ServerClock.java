package io.backpressure.redis;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * This process's estimate of the Redis server's clock, so that a call can tell the server the
 * instant (in the server's {@code TIME}, µs) after which the client has given up on it. A script
 * that starts after that instant changes nothing (see {@code guards.lua}): an admission the client
 * timed out on must not debit the buckets or store a booking when a stalled server runs it late.
 *
 * <p>Each reply that carries the server's time gives a bound: the server read its clock somewhere
 * between sending and receiving, so {@code server − received} is a lower bound of the offset
 * between the two clocks. The estimate is the largest lower bound of the last ten seconds (older
 * ones are replaced, so a server clock that steps back is followed within ten seconds). Using a
 * lower bound makes the deadline err early: by at most one round trip, a script is refused while
 * the client would still have waited, and the client then fails over as on a timeout.
 *
 * <p>Thread-safe (one atomic reference).
 */
final class ServerClock {
  private static final long KEEP_NANOS = 10_000_000_000L;

  /** One bound: the offset (server µs minus local µs) and when it was observed (local ns). */
  private record Bound(long offsetMicros, long observedAtNanos) {}

  private final LongSupplier nanoTime;
  private final AtomicReference<Bound> best = new AtomicReference<>();

  ServerClock(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  /** On the JVM's monotonic clock. */
  static ServerClock system() {
    return new ServerClock(System::nanoTime);
  }

  /** The local monotonic clock, in ns (read before sending a command whose reply is observed). */
  long localNanos() {
    return nanoTime.getAsLong();
  }

  /** Learns from a reply received now that carried the server's time {@code serverMicros}. */
  void observe(long serverMicros) {
    long now = nanoTime.getAsLong();
    Bound next = new Bound(serverMicros - now / 1_000, now);
    best.accumulateAndGet(
        next,
        (kept, fresh) ->
            kept == null
                    || fresh.offsetMicros() >= kept.offsetMicros()
                    || fresh.observedAtNanos() - kept.observedAtNanos() > KEEP_NANOS
                ? fresh
                : kept);
  }

  /**
   * The server instant (µs) at which a call sent now has been given up on after {@code
   * timeoutNanos}; empty when no reply has told the server's time yet (no deadline is sent then).
   */
  String giveUpAfter(long timeoutNanos) {
    Bound bound = best.get();
    if (bound == null) {
      return "";
    }
    return Long.toString((nanoTime.getAsLong() + timeoutNanos) / 1_000 + bound.offsetMicros());
  }
}
