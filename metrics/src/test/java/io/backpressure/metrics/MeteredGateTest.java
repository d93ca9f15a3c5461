package io.backpressure.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MeteredGateTest {
  private static final String TARGET = "openai/gpt-4o";

  private final MeterRegistry registry = new SimpleMeterRegistry();
  private final ManualClock clock = new ManualClock();

  /** Requests 10/s with a burst of 2, tokens 1000/s with a burst of 1000; two classes. */
  static Policy policy() {
    return Policy.builder(TARGET)
        .dimension("requests", 10, 2)
        .dimension("tokens", 1000, 1000)
        .priority("P1", 0.6)
        .priority("P2", 0.4)
        .build();
  }

  @Test
  void aChargeReachesTheDelegate() {
    List<Cost> charges = new ArrayList<>();
    InMemoryGate inner = InMemoryGate.create(policy(), clock);
    Gate recording =
        new Gate() {
          @Override
          public String target() {
            return inner.target();
          }

          @Override
          public Admission admit(AdmissionRequest request) {
            return inner.admit(request);
          }

          @Override
          public boolean release(Grant grant, Cost actual) {
            return inner.release(grant, actual);
          }

          @Override
          public void charge(Cost spent) {
            charges.add(spent);
            inner.charge(spent);
          }
        };
    MeteredGate gate =
        MeteredGate.builder(recording, registry).policy(MeteredGateTest::policy).build();
    gate.charge(Cost.requests(2));
    assertThat(charges).containsExactly(Cost.requests(2));
    assertThat(gate.admit("acme", "P1", Cost.requests(1).tokens(10)))
        .as("a full burst of 2 charged 2 is empty")
        .isInstanceOf(Admission.Deferred.class);
  }

  @Test
  void admitDeferRejectAndReleaseMoveTheirMeters() {
    InMemoryGate inner = InMemoryGate.create(policy(), clock);
    MeteredGate gate =
        MeteredGate.builder(inner, registry).levelsMaxAge(Duration.ofNanos(1)).build();

    Grant first = admitted(gate.admit("acme", "P1", Cost.requests(1).tokens(400)));
    Grant second = admitted(gate.admit("acme", "P1", Cost.requests(1).tokens(400)));
    Admission third = gate.admit("acme", "P1", Cost.requests(1).tokens(100));
    assertThat(third).isInstanceOf(Admission.Deferred.class);
    Duration delta = ((Admission.Deferred) third).retryAfter();
    assertThat(gate.admit("acme", "P1", Cost.requests(1).tokens(5_000)))
        .isInstanceOf(Admission.Rejected.class);
    assertThat(gate.admit("acme", "P9", Cost.requests(1).tokens(10)))
        .isInstanceOf(Admission.Rejected.class);

    assertThat(admissions("P1", "admitted", "none")).isEqualTo(2);
    assertThat(admissions("P1", "deferred", "none")).isEqualTo(1);
    assertThat(admissions("P1", "rejected", "never_fits")).isEqualTo(1);
    assertThat(admissions("_unknown", "rejected", "unknown_priority")).isEqualTo(1);
    assertThat(admissions("P2", "admitted", "none")).isZero();
    assertThat(cost(MeterNames.COST_ADMITTED, "P1", "requests")).isEqualTo(2);
    assertThat(cost(MeterNames.COST_ADMITTED, "P1", "tokens")).isEqualTo(800);
    Timer defer = registry.get(MeterNames.DEFER_DELAY).tag("priority", "P1").timer();
    assertThat(defer.count()).isEqualTo(1);
    assertThat(defer.totalTime(TimeUnit.NANOSECONDS)).isEqualTo(delta.toNanos());
    assertThat(registry.get(MeterNames.ADMISSION_LATENCY).timer().count()).isEqualTo(5);

    assertThat(gate.release(first, Cost.requests(1).tokens(150))).isTrue();
    assertThat(gate.release(second, Cost.requests(1).tokens(600))).isTrue();
    assertThat(gate.release(first, Cost.requests(1).tokens(150))).isFalse();

    assertThat(cost(MeterNames.COST_RECONCILED, "P1", "tokens")).isEqualTo(750);
    assertThat(cost(MeterNames.COST_RECONCILED, "P1", "requests")).isEqualTo(2);
    assertThat(cost(MeterNames.COST_REFUNDED, "P1", "tokens")).isEqualTo(250);
    assertThat(cost(MeterNames.COST_OVERRUN, "P1", "tokens")).isEqualTo(200);
    assertThat(cost(MeterNames.COST_REFUNDED, "P1", "requests")).isZero();
    assertThat(releases("applied")).isEqualTo(2);
    assertThat(releases("ignored")).isEqualTo(1);

    // No time has passed: two requests of a burst of two are gone, and 1000 - 800 + 250 - 200
    // tokens are left.
    assertThat(gauge(MeterNames.BUCKET_LEVEL, "requests")).isEqualTo(0, offset(1e-9));
    assertThat(gauge(MeterNames.BUCKET_UTILIZATION, "requests")).isEqualTo(1, offset(1e-9));
    assertThat(gauge(MeterNames.BUCKET_LEVEL, "tokens")).isEqualTo(250, offset(1e-9));
    assertThat(gauge(MeterNames.BUCKET_UTILIZATION, "tokens")).isEqualTo(0.75, offset(1e-9));
    assertThat(gauge(MeterNames.CAP, "tokens")).isEqualTo(1000);
    assertThat(registry.get(MeterNames.QUEUES_ACTIVE).tag("priority", "P1").gauge().value())
        .isEqualTo(1);
    assertThat(registry.get(MeterNames.QUEUES_ACTIVE).tag("priority", "P2").gauge().value())
        .isZero();
    assertThat(
            registry
                .get(MeterNames.CLASS_BUCKET_LEVEL)
                .tag("priority", "P1")
                .tag("dimension", "requests")
                .gauge()
                .value())
        .isFinite();
  }

  @Test
  void capGaugeFollowsAHotUpdate() {
    InMemoryGate inner = InMemoryGate.create(policy(), clock);
    MeteredGate.builder(inner, registry).levelsMaxAge(Duration.ofNanos(1)).build();
    assertThat(gauge(MeterNames.CAP, "requests")).isEqualTo(10);
    inner.updatePolicy(
        Policy.builder(TARGET)
            .dimension("requests", 25, 2)
            .dimension("tokens", 1000, 1000)
            .priority("P1", 0.6)
            .priority("P2", 0.4)
            .build());
    assertThat(gauge(MeterNames.CAP, "requests")).isEqualTo(25);
  }

  @Test
  void failedOpenGrantsAreCountedApartFromAdmittedOnes() {
    Gate down = new Unreachable();
    FailOpenGate failOpen = FailOpenGate.around(down).clock(clock).build();
    MeteredGate gate =
        MeteredGate.builder(failOpen, registry).policy(MeteredGateTest::policy).build();

    Grant grant = admitted(gate.admit("acme", "P2", Cost.requests(1).tokens(300)));
    assertThat(grant.failedOpen()).isTrue();
    assertThat(gate.release(grant, Cost.requests(1).tokens(280))).isFalse();

    assertThat(admissions("P2", "failed_open", "none")).isEqualTo(1);
    assertThat(admissions("P2", "admitted", "none")).isZero();
    assertThat(cost(MeterNames.COST_ADMITTED, "P2", "tokens")).isZero();
    assertThat(releases("ignored")).isEqualTo(1);
    FunctionCounter failures = registry.get(MeterNames.STATE_FAILURES).functionCounter();
    assertThat(failures.count()).isEqualTo(1);
    assertThat(registry.get(MeterNames.STATE_UNGATED).functionCounter().count()).isEqualTo(1);
    assertThat(registry.find(MeterNames.BUCKET_LEVEL).gauges())
        .as("no levels source, no level gauges")
        .isEmpty();
    assertThat(gauge(MeterNames.CAP, "requests")).isEqualTo(10);
  }

  @Test
  void aDelegateThatThrowsIsCountedAsErrorAndRethrown() {
    MeteredGate gate =
        MeteredGate.builder(new Unreachable(), registry).policy(MeteredGateTest::policy).build();
    assertThatThrownBy(() -> gate.admit("acme", "P1", Cost.requests(1).tokens(1)))
        .isInstanceOf(IllegalStateException.class);
    assertThat(admissions("P1", "error", "none")).isEqualTo(1);
    assertThat(registry.get(MeterNames.ADMISSION_LATENCY).timer().count()).isEqualTo(1);
  }

  @Test
  void tenantTagIsOffByDefaultAndBoundedWhenOn() {
    InMemoryGate inner = InMemoryGate.create(policy(), clock);
    MeteredGate.builder(inner, registry).build().admit("acme", "P1", Cost.requests(1).tokens(1));
    assertThat(registry.get(MeterNames.ADMISSIONS).counters())
        .allSatisfy(c -> assertThat(c.getId().getTag("tenant")).isNull());

    MeterRegistry tagged = new SimpleMeterRegistry();
    MeteredGate gate =
        MeteredGate.builder(InMemoryGate.create(policy(), clock), tagged)
            .tenantTag(true)
            .maxTaggedTenants(2)
            .build();
    for (String tenant : new String[] {"a", "b", "c", "d", "a"}) {
      admitted(gate.admit(tenant, "P1", Cost.requests(0).tokens(1)));
    }
    assertThat(
            tagged
                .get(MeterNames.ADMISSIONS)
                .tags("tenant", "a", "outcome", "admitted")
                .counter()
                .count())
        .isEqualTo(2);
    assertThat(
            tagged
                .get(MeterNames.ADMISSIONS)
                .tags("tenant", "b", "outcome", "admitted")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(
            tagged
                .get(MeterNames.ADMISSIONS)
                .tags("tenant", "_other", "outcome", "admitted")
                .counter()
                .count())
        .isEqualTo(2);
    assertThat(tagged.find(MeterNames.ADMISSIONS).tag("tenant", "c").counters()).isEmpty();
  }

  @Test
  void closeRemovesTheGatesMeters() {
    MeteredGate gate = MeteredGate.builder(InMemoryGate.create(policy(), clock), registry).build();
    assertThat(registry.getMeters()).isNotEmpty();
    gate.close();
    assertThat(registry.getMeters()).isEmpty();
    gate.close();
  }

  @Test
  void builderRejectsWhatItCannotMeter() {
    assertThatThrownBy(() -> MeteredGate.builder(new Unreachable(), registry).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("policy");
    assertThatThrownBy(
            () ->
                MeteredGate.builder(new Unreachable(), registry)
                    .policy(
                        () ->
                            Policy.builder("other").requestsPerSecond(1).priority("P1", 1).build())
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("target");
    assertThatThrownBy(() -> MeteredGate.builder(new Unreachable(), registry).maxTaggedTenants(0))
        .hasMessageContaining("maxTaggedTenants must be in the range [1, 100000]");
    assertThatThrownBy(
            () -> MeteredGate.builder(new Unreachable(), registry).levelsMaxAge(Duration.ZERO))
        .hasMessageContaining("levelsMaxAge");
  }

  private static Grant admitted(Admission admission) {
    assertThat(admission).isInstanceOf(Admission.Admitted.class);
    return ((Admission.Admitted) admission).grant();
  }

  private double admissions(String priority, String outcome, String reason) {
    Counter counter =
        registry
            .get(MeterNames.ADMISSIONS)
            .tags("target", TARGET, "priority", priority, "outcome", outcome, "reason", reason)
            .counter();
    return counter.count();
  }

  private double cost(String name, String priority, String dimension) {
    return registry.get(name).tags("priority", priority, "dimension", dimension).counter().count();
  }

  private double releases(String result) {
    return registry.get(MeterNames.RELEASES).tags("result", result).counters().stream()
        .mapToDouble(Counter::count)
        .sum();
  }

  private double gauge(String name, String dimension) {
    Gauge gauge = registry.get(name).tags("target", TARGET, "dimension", dimension).gauge();
    return gauge.value();
  }

  /** A gate whose state is unreachable: every call throws. */
  private static final class Unreachable implements Gate {
    @Override
    public String target() {
      return TARGET;
    }

    @Override
    public Admission admit(AdmissionRequest request) {
      throw new IllegalStateException("connection refused");
    }

    @Override
    public boolean release(Grant grant, Cost actual) {
      throw new IllegalStateException("connection refused");
    }
  }
}
