package io.backpressure.bench.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
    Semaphore slots = new Semaphore(inFlight);
    AtomicLong done = new AtomicLong();
    long start = System.nanoTime();
    long until = start + (long) (seconds * 1e9);
    for (int i = 0; System.nanoTime() < until; i++) {
      slots.acquire();
      call.start()
          .apply(i)
          .whenComplete(
              (r, e) -> {
                done.incrementAndGet();
                slots.release();
              });
    }
    slots.acquire(inFlight);
    return new Rate(done.get(), (System.nanoTime() - start) / 1e9);
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
