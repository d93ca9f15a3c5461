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
 * upstream.outside}, offered by {@link #outsideArrival}) and errors unrelated to rate limits
 * ({@code upstream.error_rate}: a share of the calls the limiter admitted are answered 500 after
 * the service latency; the provider counted them). Single-threaded.
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

  private static UpstreamLimiter limiter(Workload.Upstream spec, Workload.Caps caps) {
    WindowModel model = WindowModel.parse(spec.window());
    Duration period = Duration.ofNanos(Math.round(spec.periodS() * 1e9));
    LimitSpec requests = caps.requestsPerS() == null
        ? null : new LimitSpec(model, caps.requestsPerS() * spec.periodS(), period);
    LimitSpec tokens = caps.tokensPerS() == null
        ? null : new LimitSpec(model, caps.tokensPerS() * spec.periodS(), period);
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
    Verdict verdict = decide(now, tokens);
    if (!verdict.admitted()) {
      return new Answer(429, verdict);
    }
    boolean error = spec.errorRate() > 0 && errorRandom.nextDouble() < spec.errorRate();
    return new Answer(error ? 500 : 200, verdict);
  }

  /**
   * One request of outside traffic at {@code now}, carrying its share of the outside tokens: it
   * takes its place in the provider's windows when it fits and is dropped when it does not.
   */
  void outsideArrival(long now) {
    decide(now, spec.outsideOf(Dimension.TOKENS) / spec.outsideOf(Dimension.REQUESTS));
  }

  /** The gap between two outside requests, or {@code Long.MAX_VALUE} when there is no outside traffic. */
  long outsideGapNanos() {
    double perSecond = spec.outsideOf(Dimension.REQUESTS);
    return perSecond > 0 ? Math.round(1e9 / perSecond) : Long.MAX_VALUE;
  }

  private Verdict decide(long now, double tokens) {
    List<Workload.CapChange> schedule = spec.schedule();
    boolean changed = false;
    while (nextChange < schedule.size() && Simulation.seconds(schedule.get(nextChange).atS()) <= now) {
      nextChange++;
      changed = true;
    }
    if (changed) {
      limiter = limiter(spec, spec.capsAt(schedule.get(nextChange - 1).atS()));
    }
    return limiter.tryAcquire(now, tokens);
  }

  /** The service latency of one answer that was not a 429. */
  long latencyNanos() {
    return latencyMinNanos + (latencySpanNanos == 0 ? 0 : latencyRandom.nextLong(latencySpanNanos + 1));
  }

  boolean rejectedCount() {
    return limiter.rejectedCount();
  }
}
