package io.backpressure.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Cost;
import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.feedback.FeedbackState;
import io.backpressure.core.feedback.ProviderSignal;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Whatever the provider says, in whatever order, the effective caps stay within their bounds. */
class EffectiveCapsPropertiesTest {
  private static final List<String> DIMS = List.of("requests", "tokens");
  private static final double[] CAPS = {60, 6_000};

  record Step(long gapMicros, ProviderSignal signal) {}

  @Property(tries = 300)
  void effectiveCapsStayBetweenTheFloorAndTheConfiguredCap(@ForAll("traces") List<Step> trace) {
    FeedbackPolicy policy = FeedbackPolicy.builder().period(Duration.ofSeconds(1)).build();
    EffectiveCaps caps = new EffectiveCaps(DIMS, CAPS, policy);
    long now = 0;
    for (Step step : trace) {
      now += step.gapMicros();
      caps.observe(now, step.signal(), EffectiveCaps.ownUse(DIMS, null, step.signal()));
      double ramp = caps.rampMultiplier(now);
      assertThat(ramp).isBetween(policy.rampFraction(), 1.0);
      for (int d = 0; d < DIMS.size(); d++) {
        double e = caps.effective(d, now);
        assertThat(e).isBetween(policy.floor() * CAPS[d], CAPS[d]);
        assertThat(caps.applied(now)[d])
            .isCloseTo(e * ramp, org.assertj.core.data.Offset.offset(1e-9 * CAPS[d]));
        FeedbackState.Dimension state = caps.state(now).dimensions().get(DIMS.get(d));
        assertThat(state.outside()).isGreaterThanOrEqualTo(0);
        assertThat(state.cooldownSeconds()).isBetween(0.0, 600.0);
      }
    }
  }

  @Provide
  Arbitrary<List<Step>> traces() {
    Arbitrary<Double> limit = Arbitraries.doubles().between(0, 12_000).injectNull(0.2);
    Arbitrary<Double> remaining = Arbitraries.doubles().between(-10, 12_000).injectNull(0.2);
    Arbitrary<Duration> reset =
        Arbitraries.longs().between(0, 5_000_000_000L).map(Duration::ofNanos).injectNull(0.2);
    Arbitrary<ProviderSignal> plain =
        Combinators.combine(
                Arbitraries.of(200, 200, 200, 429, 429, 400, 500, 503, 0),
                Arbitraries.subsetOf("requests", "tokens", "input_tokens"),
                limit,
                remaining,
                reset,
                Arbitraries.longs().between(0, 3_000).map(Duration::ofMillis).injectNull(0.5),
                Arbitraries.doubles().between(0, 2_000))
            .as(
                (status, exhausted, l, r, t, retry, tokens) ->
                    new ProviderSignal(
                            status,
                            status == 429 ? exhausted : Set.of(),
                            java.util.Map.of(),
                            retry,
                            Cost.requests(1).tokens(tokens),
                            0,
                            false)
                        .withLimit(tokens > 1_000 ? "tokens" : "requests", l, r, t));
    Arbitrary<ProviderSignal> signal =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(20, plain),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(ProviderSignal.resumedAfterOutage())));
    Arbitrary<Step> step =
        Combinators.combine(Arbitraries.longs().between(0, 2_000_000), signal).as(Step::new);
    return step.list().ofMinSize(1).ofMaxSize(200);
  }
}
