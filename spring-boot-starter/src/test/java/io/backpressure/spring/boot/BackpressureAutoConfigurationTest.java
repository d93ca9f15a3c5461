package io.backpressure.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.metrics.MeteredGate;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.RedisPolicyStore;
import io.backpressure.redis.ResilientRedisGate;
import io.backpressure.redis.TestRedis;
import io.backpressure.temporal.ActivityGate;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The starter's gates, as Spring Boot builds them from properties. */
class BackpressureAutoConfigurationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  BackpressureAutoConfiguration.class,
                  SpringAiBackpressureAutoConfiguration.class,
                  LangChain4jBackpressureAutoConfiguration.class,
                  TemporalBackpressureAutoConfiguration.class));

  private static final String[] TWO_TARGETS = {
    "backpressure.default-target=gpt4o",
    "backpressure.targets.gpt4o.name=openai/gpt-4o",
    "backpressure.targets.gpt4o.requests-per-minute=600",
    "backpressure.targets.gpt4o.tokens-per-minute=60000",
    "backpressure.targets.gpt4o.priorities.P1=0.7",
    "backpressure.targets.gpt4o.priorities.P2=0.3",
    "backpressure.targets.gpt4o.tenant-weights.acme=2",
    "backpressure.targets.mini.policy-file=classpath:mini-policy.yaml",
  };

  /**
   * How long a test waits for a gate's first connection to the test's Redis: long enough for a
   * loaded machine, bounded so that a Redis that never answers fails the test with a message.
   */
  private static final Duration CONNECTED_WITHIN = Duration.ofSeconds(60);

  /** Injects the gates the way an application does. */
  @Configuration(proxyBeanMethods = false)
  static class Consumer {
    @Bean
    Object consumer(Gate primary, @Qualifier("mini") Gate mini) {
      return new Gate[] {primary, mini};
    }
  }

  @Test
  void buildsAGatePerTargetAndThePrimaryIsTheDefaultTarget() {
    runner
        .withPropertyValues(TWO_TARGETS)
        .withUserConfiguration(Consumer.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              BackpressureGates gates = context.getBean(BackpressureGates.class);
              assertThat(gates.all()).containsOnlyKeys("gpt4o", "mini");
              Gate[] injected = (Gate[]) context.getBean("consumer");
              assertThat(injected[0].target()).isEqualTo("openai/gpt-4o");
              assertThat(injected[1].target()).isEqualTo("openai/gpt-4o-mini");
              assertThat(injected[0]).isInstanceOf(InMemoryGate.class);
              InMemoryGate gpt4o = (InMemoryGate) injected[0];
              assertThat(gpt4o.policy().priorityNames()).containsExactly("P1", "P2");
              assertThat(gpt4o.policy().tenantWeight("acme")).isEqualTo(2.0);
              assertThat(
                      gpt4o
                          .policy()
                          .dimensions()
                          .get(gpt4o.policy().dimensionIndex("requests"))
                          .capPerSecond())
                  .isEqualTo(10.0);
              assertThat(context).hasSingleBean(ActivityGate.class);
            });
  }

  @Test
  void inlinePerMinuteCapsGetAOneMinuteSafeWindowUnlessItIsSetOrZero() {
    runner
        .withPropertyValues(TWO_TARGETS)
        .run(
            context -> {
              InMemoryGate gpt4o =
                  (InMemoryGate) context.getBean(BackpressureGates.class).all().get("gpt4o");
              assertThat(gpt4o.policy().safeWindow()).isEqualTo(Duration.ofMinutes(1));
              InMemoryGate mini =
                  (InMemoryGate) context.getBean(BackpressureGates.class).all().get("mini");
              assertThat(mini.policy().safeWindow())
                  .isEqualTo(Duration.ofMinutes(1)); // per_minute in the file
            });
    runner
        .withPropertyValues(TWO_TARGETS)
        .withPropertyValues("backpressure.targets.gpt4o.safe-window=1s")
        .run(
            context ->
                assertThat(
                        ((InMemoryGate) context.getBean(BackpressureGates.class).all().get("gpt4o"))
                            .policy()
                            .safeWindow())
                    .isEqualTo(Duration.ofSeconds(1)));
    runner
        .withPropertyValues(TWO_TARGETS)
        .withPropertyValues("backpressure.targets.gpt4o.safe-window=0")
        .run(
            context ->
                assertThat(
                        ((InMemoryGate) context.getBean(BackpressureGates.class).all().get("gpt4o"))
                            .policy()
                            .safeWindow())
                    .isNull());
  }

  @Test
  void aSendMarginWidensTheSafeWindowAndScalesTheCaps() {
    runner
        .withPropertyValues(TWO_TARGETS)
        .withPropertyValues("backpressure.targets.gpt4o.send-margin=1s")
        .run(
            context -> {
              Policy policy =
                  ((InMemoryGate) context.getBean(BackpressureGates.class).all().get("gpt4o"))
                      .policy();
              assertThat(policy.safeWindow()).isEqualTo(Duration.ofSeconds(61));
              assertThat(policy.dimensions().get(policy.dimensionIndex("requests")).capPerSecond())
                  .isCloseTo(600 / 61.0, within(1e-9));
              assertThat(policy.dimensions().get(policy.dimensionIndex("requests")).burst())
                  .isEqualTo(10.0);
            });
  }

  @Test
  void aProviderPeriodOfOneSecondSetsTheSafeWindowAndTheFeedbackPeriodOfInlineCaps() {
    runner
        .withPropertyValues(TWO_TARGETS)
        .withPropertyValues("backpressure.targets.gpt4o.provider-period=1s")
        .run(
            context -> {
              Policy policy =
                  ((InMemoryGate) context.getBean(BackpressureGates.class).all().get("gpt4o"))
                      .policy();
              assertThat(policy.safeWindow()).isEqualTo(Duration.ofSeconds(1));
              assertThat(policy.feedback().period()).isEqualTo(Duration.ofSeconds(1));
              assertThat(policy.dimensions().get(policy.dimensionIndex("requests")).capPerSecond())
                  .isEqualTo(10.0);
            });
  }

  @Test
  void aProviderPeriodOutOfRangeOrBesideAPolicyFileFailsStartUpNamingIt() {
    String gpt4o = "backpressure.targets.gpt4o.";
    assertStartUpFails(
        runner.withPropertyValues(TWO_TARGETS).withPropertyValues(gpt4o + "provider-period=0s"),
        gpt4o + "provider-period",
        "must be a duration in (0, 1h]");
    assertStartUpFails(
        runner.withPropertyValues(TWO_TARGETS).withPropertyValues(gpt4o + "provider-period=2h"),
        gpt4o + "provider-period",
        "must be a duration in (0, 1h]");
    assertStartUpFails(
        runner
            .withPropertyValues(TWO_TARGETS)
            .withPropertyValues("backpressure.targets.mini.provider-period=1s"),
        "backpressure.targets.mini.provider-period",
        "a policy file states its own period");
  }

  @Test
  void aSendMarginOutOfRange_withoutASafeWindow_orBesideAPolicyFile_failsStartUpNamingIt() {
    String gpt4o = "backpressure.targets.gpt4o.";
    assertStartUpFails(
        runner.withPropertyValues(TWO_TARGETS).withPropertyValues(gpt4o + "send-margin=-1s"),
        gpt4o + "send-margin",
        "send_margin must be a duration in [0, safe_window], got -1s");
    assertStartUpFails(
        runner
            .withPropertyValues(TWO_TARGETS)
            .withPropertyValues(gpt4o + "safe-window=1s", gpt4o + "send-margin=2s"),
        gpt4o + "send-margin",
        "send_margin must be a duration in [0, 1s] (at most safe_window), got 2s");
    assertStartUpFails(
        runner
            .withPropertyValues(TWO_TARGETS)
            .withPropertyValues(gpt4o + "safe-window=0", gpt4o + "send-margin=100ms"),
        gpt4o + "send-margin",
        "send_margin needs a safe_window");
    assertStartUpFails(
        runner
            .withPropertyValues(TWO_TARGETS)
            .withPropertyValues("backpressure.targets.mini.send-margin=100ms"),
        "backpressure.targets.mini.send-margin",
        "a policy file has its own send_margin");
  }

  /**
   * Start-up with {@code runner}'s properties fails with Spring Boot's exception for {@code
   * property}, its message containing {@code message}.
   */
  private static void assertStartUpFails(
      ApplicationContextRunner runner, String property, String message) {
    runner.run(
        context -> {
          assertThat(context).hasFailed();
          assertThat(context.getStartupFailure())
              .rootCause()
              .isInstanceOfSatisfying(
                  InvalidConfigurationPropertyValueException.class,
                  e -> assertThat(e.getName()).isEqualTo(property))
              .hasMessageContaining(message);
        });
  }

  @Test
  void aNegativeCapFailsStartUpNamingTheProperty() {
    assertStartUpFails(
        runner.withPropertyValues(
            "backpressure.targets.openai.requests-per-minute=-5",
            "backpressure.targets.openai.tokens-per-minute=60000",
            "backpressure.targets.openai.priorities.P1=1"),
        "backpressure.targets.openai.requests-per-minute",
        "positive");
  }

  @Test
  void aBadClassWeightFailsStartUpWithTheCoresMessage() {
    assertStartUpFails(
        runner.withPropertyValues(
            "backpressure.targets.openai.requests-per-minute=60",
            "backpressure.targets.openai.tokens-per-minute=60000",
            "backpressure.targets.openai.priorities.P1=0"),
        "backpressure.targets.openai.priorities.P1",
        "priorities.P1 must be a number in (0,");
  }

  @Test
  void aDefaultTargetThatIsNotConfiguredFailsStartUp() {
    assertStartUpFails(
        runner
            .withPropertyValues(TWO_TARGETS)
            .withPropertyValues("backpressure.default-target=gpt5"),
        "backpressure.default-target",
        "[gpt4o, mini]");
  }

  @Test
  void aPolicyFileWithAnUnknownKeyFailsStartUpNamingTheFileProperty() {
    assertStartUpFails(
        runner.withPropertyValues("backpressure.targets.bad.policy-file=classpath:bad-policy.yaml"),
        "backpressure.targets.bad.policy-file",
        "burst_size");
  }

  @Test
  void aTargetWithoutATokenCapFailsStartUpNamingTheMissingProperty() {
    assertStartUpFails(
        runner.withPropertyValues(
            "backpressure.targets.openai.requests-per-minute=60",
            "backpressure.targets.openai.priorities.P1=1"),
        "backpressure.targets.openai.tokens-per-minute",
        "set the provider's tokens per minute");
  }

  @Test
  void aCapThatIsNotANumberFailsStartUpNamingTheProperty() {
    runner
        .withPropertyValues(
            "backpressure.targets.openai.requests-per-minute=lots",
            "backpressure.targets.openai.tokens-per-minute=60000",
            "backpressure.targets.openai.priorities.P1=1")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .hasStackTraceContaining("backpressure.targets.openai.requests-per-minute");
            });
  }

  @Test
  void noTargetsNoGates() {
    runner.run(
        context -> {
          assertThat(context).hasNotFailed();
          assertThat(context).doesNotHaveBean(BackpressureGates.class);
          assertThat(context).doesNotHaveBean(Gate.class);
        });
  }

  @Test
  void gatesAreMeteredInTheApplicationsRegistry() {
    runner
        .withPropertyValues(TWO_TARGETS)
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            context -> {
              Gate gate = context.getBean(Gate.class);
              assertThat(gate).isInstanceOf(MeteredGate.class);

              Admission admission = gate.admit("acme", "P1", Cost.requests(1).tokens(100));

              assertThat(admission).isInstanceOf(Admission.Admitted.class);
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              assertThat(registry.getMeters())
                  .anySatisfy(
                      meter ->
                          assertThat(meter.getId().getTag("target")).isEqualTo("openai/gpt-4o"));
            });
  }

  @Test
  void withARedisUrlTheGateSharesItsStateThroughRedisAndFailsOpenAsConfigured() {
    runner
        .withPropertyValues(
            "backpressure.redis.url=" + TestRedis.shared().url(),
            "backpressure.redis.key-prefix=" + TestRedis.freshPrefix(),
            "backpressure.fail-mode=closed",
            // One request a minute of the server's time, so the second call is deferred.
            "backpressure.targets.openai.requests-per-minute=1",
            "backpressure.targets.openai.requests-burst=1",
            "backpressure.targets.openai.tokens-per-minute=60000",
            "backpressure.targets.openai.priorities.P1=1")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Gate gate = context.getBean(Gate.class);
              assertThat(gate).isInstanceOf(ResilientRedisGate.class);
              // Start-up waits only so long for the first connection; on a loaded machine it may
              // come later, so wait for it here rather than assume it came within that wait.
              assertThat(((ResilientRedisGate) gate).awaitConnected(CONNECTED_WITHIN))
                  .as("connected to the test's Redis within %s", CONNECTED_WITHIN)
                  .isTrue();

              assertThat(gate.admit("acme", "P1", Cost.requests(1).tokens(0)))
                  .isInstanceOf(Admission.Admitted.class);
              assertThat(gate.admit("acme", "P1", Cost.requests(1).tokens(0)))
                  .isInstanceOf(Admission.Deferred.class);
              assertThat(((ResilientRedisGate) gate).failOpen().failures()).isZero();
            });
  }

  @Test
  void policyOwnershipVerifyFailsStartUpOnAStoredPolicyThatDiffersAndReplaceWritesOver() {
    String prefix = TestRedis.freshPrefix();
    try (RedisPolicyStore store =
        RedisPolicyStore.connect(
            RedisGateConfig.builder(TestRedis.shared().url())
                .target("openai")
                .keyPrefix(prefix)
                .build())) {
      store.apply(
          Policy.builder("openai")
              .requestsPerMinute(60)
              .tokensPerMinute(60_000)
              .priority("P1", 1)
              .build());
    }
    ApplicationContextRunner redis =
        runner.withPropertyValues(
            "backpressure.redis.url=" + TestRedis.shared().url(),
            "backpressure.redis.key-prefix=" + prefix,
            "backpressure.targets.openai.requests-per-minute=6",
            "backpressure.targets.openai.requests-burst=1",
            "backpressure.targets.openai.tokens-per-minute=60000",
            "backpressure.targets.openai.priorities.P1=1");
    redis
        .withPropertyValues("backpressure.policy-ownership=verify")
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .rootCause()
                    .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining("backpressure.policy-ownership")
                    .hasMessageContaining("dimensions.requests"));
    redis
        .withPropertyValues("backpressure.policy-ownership=replace")
        .run(
            context -> {
              ResilientRedisGate gate = (ResilientRedisGate) context.getBean(Gate.class);
              assertThat(gate.awaitConnected(CONNECTED_WITHIN))
                  .as("connected to the test's Redis within %s", CONNECTED_WITHIN)
                  .isTrue();
              assertThat(gate.redisGate().policy().dimensions().get(0).capPerSecond())
                  .isEqualTo(0.1, within(1e-9));
            });
  }

  @Test
  void aMeteredRedisGateCountsTheCallsDecidedWithoutRedis() {
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues(
            "backpressure.redis.url=" + TestRedis.shared().url(),
            "backpressure.redis.key-prefix=" + TestRedis.freshPrefix(),
            "backpressure.targets.openai.requests-per-minute=60",
            "backpressure.targets.openai.tokens-per-minute=60000",
            "backpressure.targets.openai.priorities.P1=1")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(Gate.class)).isInstanceOf(MeteredGate.class);
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              assertThat(registry.find("backpressure.state.failures").functionCounter())
                  .isNotNull();
              assertThat(registry.find("backpressure.state.ungated").functionCounter()).isNotNull();
            });
  }

  @Test
  void aMeteredRedisGateReadsTheSharedLeasesAndQuotas() {
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues(
            "backpressure.redis.url=" + TestRedis.shared().url(),
            "backpressure.redis.key-prefix=" + TestRedis.freshPrefix(),
            "backpressure.targets.openai.policy-file=classpath:limited-policy.yaml")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Gate gate = context.getBean(Gate.class);
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              Gauge inFlight = registry.get("backpressure.limit.in.flight").gauge();
              // NaN until the gate first reaches Redis; start-up waits only so long for it.
              long deadline = System.nanoTime() + CONNECTED_WITHIN.toNanos();
              while (Double.isNaN(inFlight.value()) && System.nanoTime() < deadline) {
                Thread.sleep(50);
              }
              assertThat(inFlight.value()).as("connected within %s", CONNECTED_WITHIN).isZero();
              assertThat(registry.get("backpressure.limit.concurrency").gauge().value())
                  .isEqualTo(4);

              Admission admitted = gate.admit("acme", "P1", Cost.requests(1).tokens(100));
              assertThat(admitted).isInstanceOf(Admission.Admitted.class);

              assertThat(inFlight.value()).isEqualTo(1);
              assertThat(
                      registry.get("backpressure.limit.leases.expired").functionCounter().count())
                  .isZero();
              assertThat(
                      registry.get("backpressure.quota.used").tag("priority", "P1").gauge().value())
                  .isEqualTo(100);
              assertThat(
                      registry
                          .get("backpressure.quota.remaining")
                          .tag("priority", "P1")
                          .gauge()
                          .value())
                  .isEqualTo(900);
              assertThat(
                      registry.get("backpressure.quota.used").tag("priority", "P2").gauge().value())
                  .as("no quota on P2")
                  .isNaN();
            });
  }
}
