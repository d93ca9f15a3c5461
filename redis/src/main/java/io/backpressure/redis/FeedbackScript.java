package io.backpressure.redis;

import io.backpressure.core.Grant;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.feedback.FeedbackState;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.spi.EffectiveCaps;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The client side of {@code feedback.lua}: lays out a signal as the script's arguments and reads
 * its reply back as a {@link FeedbackState}. The script's header documents both layouts.
 */
final class FeedbackScript {
  static final Script SCRIPT = Script.load(Script.BUCKETS, "feedback.lua");

  /** Longest duration sent (ns): the parser's own bound, so both twins see the same numbers. */
  private static final long MAX_NANOS = Duration.ofDays(1).toNanos();

  private FeedbackScript() {}

  /**
   * Reports {@code signal} (mode {@code observe}) or only reads the state ({@code signal} null),
   * with the feedback parameters of {@code stored}. Completes with the script's reply: {@link
   * #stale} tells whether the caller must reload the policy and ask again, {@link #decode} reads
   * the rest.
   */
  static CompletableFuture<List<Object>> run(
      Connection connection,
      Keys keys,
      RedisPolicyStore.Stored stored,
      String now,
      @Nullable Grant grant,
      @Nullable ProviderSignal signal) {
    Policy policy = stored.policy();
    FeedbackPolicy f = policy.feedback();
    List<String> names = policy.dimensionNames();
    List<String> args = new ArrayList<>();
    args.add(signal == null ? "read" : "observe");
    args.add(now);
    args.add(f.enabled() ? "1" : "0");
    args.add(Double.toString(f.period().toNanos() / 1e9));
    args.add(Double.toString(f.decrease()));
    args.add(Double.toString(f.increase()));
    args.add(Double.toString(f.floor()));
    args.add(Double.toString(f.headroom()));
    args.add(Long.toString(f.cooldown().toNanos()));
    args.add(Double.toString(f.outsideWeight()));
    args.add(Double.toString(f.rampFraction()));
    args.add(Long.toString(f.rampDuration().toNanos() / 1_000));
    args.add(Integer.toString(f.outageErrors()));
    args.add(Long.toString(Math.max(1, f.period().toNanos() / 1_000 / EffectiveCaps.SLOTS)));
    ProviderSignal s = signal == null ? ProviderSignal.ofStatus(200) : signal;
    double[] own = signal == null ? null : EffectiveCaps.ownUse(names, grant, signal);
    args.add(Integer.toString(s.status()));
    args.add(s.resumed() ? "resumed" : s.meaning().name());
    args.add(Integer.toString(s.ignored()));
    args.add(nanos(s.retryAfter()));
    args.add(own == null ? "0" : "1");
    for (int d = 0; d < names.size(); d++) {
      ProviderSignal.RateLimit limit = s.limits().get(names.get(d));
      args.add(s.exhausted().contains(names.get(d)) ? "1" : "0");
      args.add(limit == null ? "0" : "1");
      args.add(limit == null || limit.limit() == null ? "" : Double.toString(limit.limit()));
      args.add(
          limit == null || limit.remaining() == null ? "" : Double.toString(limit.remaining()));
      args.add(limit == null ? "" : nanos(limit.reset()));
      args.add(own == null ? "0" : Double.toString(own[d]));
    }
    args.add(Integer.toString(names.indexOf(io.backpressure.core.Dimension.REQUESTS) + 1));
    args.add(stored.version());
    return connection.run(
        SCRIPT, new String[] {keys.config(), keys.feedback()}, args.toArray(String[]::new));
  }

  /** The live policy version when the reply says the caller's was stale; null otherwise. */
  static @Nullable String stale(List<Object> reply) {
    return (Long) reply.get(0) == 2 ? (String) reply.get(1) : null;
  }

  private static String nanos(@Nullable Duration d) {
    return d == null ? "" : Long.toString(Math.min(MAX_NANOS, d.toNanos()));
  }

  /** The state in a reply that is not stale; empty when the target has no policy. */
  static Optional<FeedbackState> decode(List<String> names, List<Object> reply) {
    if ((Long) reply.get(0) == 0) {
      return Optional.empty();
    }
    Map<String, FeedbackState.Dimension> dims = new LinkedHashMap<>();
    int i = 9;
    for (int d = 0; d < names.size() && i + 6 < reply.size(); d++, i += 7) {
      double limit = number(reply, i + 3);
      dims.put(
          names.get(d),
          new FeedbackState.Dimension(
              number(reply, i),
              number(reply, i + 1),
              number(reply, i + 2),
              limit < 0 ? Double.NaN : limit,
              number(reply, i + 4),
              number(reply, i + 5),
              number(reply, i + 6)));
    }
    return Optional.of(
        new FeedbackState(
            dims,
            number(reply, 2),
            (Long) reply.get(3) == 1,
            (Long) reply.get(4),
            (Long) reply.get(5),
            (Long) reply.get(6),
            (Long) reply.get(7),
            (Long) reply.get(8)));
  }

  private static double number(List<Object> reply, int i) {
    return Double.parseDouble((String) reply.get(i));
  }
}
