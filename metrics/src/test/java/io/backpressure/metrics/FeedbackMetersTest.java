package io.backpressure.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.feedback.ProviderSignals;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FeedbackMetersTest {
  private final MeterRegistry registry = new SimpleMeterRegistry();
  private final ManualClock clock = new ManualClock();
  private final InMemoryGate inner =
      InMemoryGate.create(
          Policy.builder("openai/gpt-4o")
              .requestsPerSecond(60)
              .tokensPerSecond(6_000)
              .priority("P1", 1)
              .feedback(
                  FeedbackPolicy.builder()
                      .period(Duration.ofSeconds(1))
                      .ramp(0.25, Duration.ofSeconds(10))
                      .build())
              .build(),
          clock);
  private final MeteredGate gate =
      MeteredGate.builder(inner, registry).levelsMaxAge(Duration.ofNanos(1)).build();

  @Test
  void answersAreCountedByKind_andWhatWasLearnedIsShownPerDimension() {
    gate.feedback(null, ProviderSignal.ofStatus(200).withLimit("tokens", 3_000.0, null, null));
    gate.feedback(null, ProviderSignal.rateLimited("requests", Duration.ofSeconds(2)));
    gate.feedback(null, ProviderSignal.ofStatus(503));
    gate.feedback(
        null,
        ProviderSignals.parse(
            200, Map.of("x-ratelimit-limit-requests", List.of("many")), null, Instant.now()));

    assertThat(count("ok")).isEqualTo(2);
    assertThat(count("rate_limited")).isEqualTo(1);
    assertThat(count("provider_error")).isEqualTo(1);
    assertThat(registry.get("backpressure.feedback.ignored").counter().count()).isEqualTo(1);

    assertThat(gauge("backpressure.cap.effective", "requests")).isEqualTo(48.0);
    assertThat(gauge("backpressure.cap.effective", "tokens")).isEqualTo(2_850.0);
    assertThat(gauge("backpressure.cap.applied", "tokens")).isEqualTo(2_850.0);
    assertThat(gauge("backpressure.cap.provider.limit", "tokens")).isEqualTo(3_000.0);
    assertThat(gauge("backpressure.cap.provider.limit", "requests")).isNaN();
    assertThat(gauge("backpressure.cooldown.remaining", "requests")).isEqualTo(2.0);
    assertThat(gauge("backpressure.outside.rate", "requests")).isZero();
    assertThat(registry.get("backpressure.feedback.decreases").functionCounter().count())
        .isEqualTo(1);
    assertThat(registry.get("backpressure.feedback.adoptions").functionCounter().count())
        .isEqualTo(1);

    // The 429's retry-after holds every admission for 2 s; the next one reads the buckets.
    clock.advance(Duration.ofSeconds(2));
    gate.admit("acme", "P1", Cost.requests(0).tokens(0));
    assertThat(
            registry
                .get("backpressure.bucket.utilization")
                .tag("dimension", "tokens")
                .gauge()
                .value())
        .as("a full bucket under the lower cap is idle")
        .isCloseTo(0.0, offset(1e-9));

    gate.feedback(null, ProviderSignal.resumedAfterOutage());
    assertThat(count("resumed")).isEqualTo(1);
    assertThat(registry.get("backpressure.ramp.factor").gauge().value()).isEqualTo(0.25);
    assertThat(gauge("backpressure.cap.applied", "requests")).isCloseTo(12.0, offset(1e-9));
    clock.advance(Duration.ofSeconds(10));
    assertThat(registry.get("backpressure.ramp.factor").gauge().value()).isEqualTo(1.0);
  }

  @Test
  void aGateThatIsNotInMemoryCountsAnswersWithoutStateGauges() {
    Gate plain =
        new Gate() {
          @Override
          public String target() {
            return inner.target();
          }

          @Override
          public io.backpressure.core.Admission admit(
              io.backpressure.core.AdmissionRequest request) {
            return inner.admit(request);
          }

          @Override
          public boolean release(io.backpressure.core.Grant grant, Cost actual) {
            return inner.release(grant, actual);
          }
        };
    MeterRegistry other = new SimpleMeterRegistry();
    MeteredGate metered = MeteredGate.builder(plain, other).policy(inner::policy).build();
    metered.feedback(null, ProviderSignal.ofStatus(429));
    assertThat(
            other
                .get("backpressure.feedback.signals")
                .tag("kind", "rate_limited")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(other.find("backpressure.cap.effective").gauge()).isNull();
  }

  private double count(String kind) {
    return registry.get("backpressure.feedback.signals").tag("kind", kind).counter().count();
  }

  private double gauge(String name, String dimension) {
    return registry.get(name).tag("dimension", dimension).gauge().value();
  }
}
