package io.backpressure.eval;

import io.backpressure.core.Dimension;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.UpstreamLimiter;
import io.backpressure.mock.limit.Verdict;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The simulated provider: the mock provider's own {@link UpstreamLimiter} (so simulation and the
 * HTTP mock enforce identical window semantics) plus the workload's uniform service latency, its
 * drift ({@code upstream.schedule}: at each entry's {@code at_s} the provider starts counting
 * against the new caps, with a fresh window), traffic from outside the gate ({@code
 * upstream.outside}: spread evenly, it takes its rate out of every window, so the workload's calls
 * meet the caps less the outside rates) and errors unrelated to rate limits ({@code
 * upstream.error_rate}: a share of the calls the limiter admitted are answered 500 after the
 * service latency; the provider counted them). Single-threaded.
 */
final class SimUpstream {
  private final Workload.Upstream spec;
  private final SplittableRandom latencyRandom;
  private final SplittableRandom errorRandom;
  private final long latencyMinNanos;
  private final long latencySpanNanos;
  private UpstreamLimiter limiter;
  private int nextChange;

  /**
   * @param latencyRandom the stream of service latencies
   * @param errorRandom the stream that decides which admitted calls get a 500
   */
  SimUpstream(Workload.Upstream spec, SplittableRandom latencyRandom, SplittableRandom errorRandom) {
    this.spec = spec;
    this.latencyRandom = latencyRandom;
    this.errorRandom = errorRandom;
    this.limiter = limiter(spec, spec.initialCaps());
    this.latencyMinNanos = Math.round(spec.latencyMinMs() * 1e6);
    this.latencySpanNanos = Math.round(spec.latencyMaxMs() * 1e6) - latencyMinNanos;
  }

  /** The limiter for {@code caps}, less the outside traffic. */
  private static UpstreamLimiter limiter(Workload.Upstream spec, Workload.Caps caps) {
    WindowModel model = WindowModel.parse(spec.window());
    Duration period = Duration.ofNanos(Math.round(spec.periodS() * 1e9));
    LimitSpec requests = caps.requestsPerS() == null ? null : new LimitSpec(model,
        (caps.requestsPerS() - spec.outsideOf(Dimension.REQUESTS)) * spec.periodS(), period);
    LimitSpec tokens = caps.tokensPerS() == null ? null : new LimitSpec(model,
        (caps.tokensPerS() - spec.outsideOf(Dimension.TOKENS)) * spec.periodS(), period);
    return new UpstreamLimiter(requests, tokens, spec.rejectedCount());
  }

  /**
   * One answer.
   *
   * @param status 200, 429 or 500
   * @param verdict the limiter's decision (a 500 was admitted by it)
   */
  record Answer(int status, Verdict verdict) {}

  /** A call of {@code tokens} tokens arrives at {@code now}: the provider's answer (and debit). */
  Answer arrive(long now, double tokens) {
    List<Workload.CapChange> schedule = spec.schedule();
    boolean changed = false;
    while (nextChange < schedule.size() && Simulation.seconds(schedule.get(nextChange).atS()) <= now) {
      nextChange++;
      changed = true;
    }
    if (changed) {
      limiter = limiter(spec, spec.capsAt(schedule.get(nextChange - 1).atS()));
    }
    Verdict verdict = limiter.tryAcquire(now, tokens);
    if (!verdict.admitted()) {
      return new Answer(429, verdict);
    }
    boolean error = spec.errorRate() > 0 && errorRandom.nextDouble() < spec.errorRate();
    return new Answer(error ? 500 : 200, verdict);
  }

  /** The service latency of one answer that was not a 429. */
  long latencyNanos() {
    return latencyMinNanos + (latencySpanNanos == 0 ? 0 : latencyRandom.nextLong(latencySpanNanos + 1));
  }

  boolean rejectedCount() {
    return limiter.rejectedCount();
  }
}
