package io.backpressure.eval;

import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.UpstreamLimiter;
import io.backpressure.mock.limit.Verdict;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import java.util.SplittableRandom;

/**
 * The simulated provider: the mock provider's own {@link UpstreamLimiter} (so simulation and the
 * HTTP mock enforce identical window semantics) plus the workload's uniform service latency.
 * Single-threaded.
 */
final class SimUpstream {
  private final UpstreamLimiter limiter;
  private final SplittableRandom latencyRandom;
  private final long latencyMinNanos;
  private final long latencySpanNanos;

  SimUpstream(Workload.Upstream spec, SplittableRandom latencyRandom) {
    WindowModel model = WindowModel.parse(spec.window());
    Duration period = Duration.ofNanos(Math.round(spec.periodS() * 1e9));
    LimitSpec requests = spec.requestsPerS() == null
        ? null : new LimitSpec(model, spec.requestsPerS() * spec.periodS(), period);
    LimitSpec tokens = spec.tokensPerS() == null
        ? null : new LimitSpec(model, spec.tokensPerS() * spec.periodS(), period);
    this.limiter = new UpstreamLimiter(requests, tokens, spec.rejectedCount());
    this.latencyRandom = latencyRandom;
    this.latencyMinNanos = Math.round(spec.latencyMinMs() * 1e6);
    this.latencySpanNanos = Math.round(spec.latencyMaxMs() * 1e6) - latencyMinNanos;
  }

  /** A call of {@code tokens} tokens arrives at {@code now}: the provider's decision (and debit). */
  Verdict arrive(long now, double tokens) {
    return limiter.tryAcquire(now, tokens);
  }

  /** The service latency of one 200. */
  long latencyNanos() {
    return latencyMinNanos + (latencySpanNanos == 0 ? 0 : latencyRandom.nextLong(latencySpanNanos + 1));
  }

  boolean rejectedCount() {
    return limiter.rejectedCount();
  }
}
