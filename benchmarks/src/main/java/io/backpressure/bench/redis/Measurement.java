package io.backpressure.bench.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import org.HdrHistogram.Histogram;

/**
 * How the calls of one run are timed, side by side: sequential round trips with the calls
 * interleaved (so every call sees the same machine load), into one HdrHistogram each (µs); and
 * completions per second with a fixed number of calls outstanding, one call kind after the other.
 */
final class Measurement {
  private Measurement() {}

  /** One kind of call: call {@code i} of the run. */
  record Call(String name, IntFunction<CompletableFuture<?>> start) {}

  /**
   * Interleaved sequential round trips of {@code calls} for {@code seconds}; one histogram per call
   * (µs).
   */
  static Histogram[] sequential(List<Call> calls, double seconds) throws Exception {
    Histogram[] latency = new Histogram[calls.size()];
    for (int c = 0; c < latency.length; c++) {
      latency[c] = new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
    }
    long until = System.nanoTime() + (long) (seconds * 1e9);
    for (int i = 0; System.nanoTime() < until; i++) {
      for (int c = 0; c < latency.length; c++) {
        long t0 = System.nanoTime();
        calls.get(c).start().apply(i).get();
        latency[c].recordValue(Math.max(1, (System.nanoTime() - t0) / 1_000));
      }
    }
    return latency;
  }

  /** Calls completed in a span of wall time. */
  record Rate(long calls, double seconds) {
    double perSecond() {
      return calls / seconds;
    }
  }

  /** Completions of {@code call} with {@code inFlight} outstanding, for {@code seconds}. */
  static Rate throughput(Call call, int inFlight, double seconds) throws InterruptedException {
    InFlight outstanding = new InFlight(inFlight);
    long start = System.nanoTime();
    long until = start + (long) (seconds * 1e9);
    for (int i = 0; System.nanoTime() < until; i++) {
      outstanding.start(call, i);
    }
    return new Rate(outstanding.drain(), (System.nanoTime() - start) / 1e9);
  }

  /**
   * Calls with at most a given number outstanding. A failed call is not a completion: the first
   * failure is thrown by {@link #drain}, so that no rate counts errors as work done.
   */
  static final class InFlight {
    private final int limit;
    private final Semaphore slots;
    private final AtomicLong done = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    InFlight(int limit) {
      this.limit = limit;
      this.slots = new Semaphore(limit);
    }

    /** Starts call {@code i} of {@code call} once fewer than the limit are outstanding. */
    void start(Call call, int i) throws InterruptedException {
      slots.acquire();
      // The callback keeps the call's outcome for drain(): the future it returns adds nothing.
      CompletableFuture<?> unused =
          call.start()
              .apply(i)
              .whenComplete(
                  (r, e) -> {
                    if (e == null) {
                      done.incrementAndGet();
                    } else {
                      failure.compareAndSet(null, e);
                    }
                    slots.release();
                  });
    }

    /**
     * Waits for every outstanding call.
     *
     * @return how many calls completed
     * @throws IllegalStateException with the first failure when a call failed
     */
    long drain() throws InterruptedException {
      slots.acquire(limit);
      slots.release(limit);
      Throwable first = failure.get();
      if (first != null) {
        throw new IllegalStateException("a call failed: " + first, first);
      }
      return done.get();
    }
  }

  /** {@code p50 / p95 / p99} of {@code h}. */
  static String percentiles(Histogram h) {
    return h.getValueAtPercentile(50)
        + " / "
        + h.getValueAtPercentile(95)
        + " / "
        + h.getValueAtPercentile(99);
  }
}
