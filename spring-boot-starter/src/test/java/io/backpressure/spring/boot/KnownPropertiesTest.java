package io.backpressure.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Unknown or misspelt {@code backpressure.*} keys stop start-up, naming the key to use instead. */
class KnownPropertiesTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  BackpressurePropertiesAutoConfiguration.class,
                  BackpressureAutoConfiguration.class))
          .withPropertyValues(
              "backpressure.targets.openai.requests-per-minute=600",
              "backpressure.targets.openai.tokens-per-minute=60000",
              "backpressure.targets.openai.priorities.P1=0.7",
              "backpressure.targets.openai.priorities.P3=0.3");

  @Test
  void everyDocumentedFormOfEveryKeyStarts() {
    runner
        .withPropertyValues(
            "backpressure.targets.openai.safe-window=1m",
            "backpressure.targets.openai.tenantWeights.acme=2",
            "backpressure.targets.openai.default_tenant_weight=1",
            "backpressure.redis.key-prefix=bp",
            "backpressure.fail-mode=closed",
            "backpressure.metrics.tenant-tag=true",
            "backpressure.spring-ai.check-model-retries=false",
            "backpressure.langchain4j.decorate-models=false",
            "backpressure.temporal.interceptor=none",
            "backpressure.enabled=true")
        .run(context -> assertThat(context).hasNotFailed());
    assertThat(
            KnownProperties.problem(
                ConfigurationPropertyName.of("backpressure.redis.cluster-nodes[1]")))
        .isNull();
    assertThat(
            KnownProperties.problem(
                ConfigurationPropertyName.of("backpressure.redis.cluster-nodes.x")))
        .contains("backpressure.redis.cluster-nodes is a list, indexed [0], [1]");
  }

  @Test
  void aMisspeltTargetKeyFailsStartUpNamingTheNearestValidKey() {
    runner
        .withPropertyValues(
            "backpressure.targets.openai.safe-windw=10s",
            "backpressure.targets.openai.priorites.P2=0.2")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .isInstanceOf(KnownProperties.UnknownPropertiesException.class)
                  .hasMessageContaining(
                      "backpressure.targets.openai.priorites.P2 is not a property of the"
                          + " backpressure starter; did you mean"
                          + " backpressure.targets.openai.priorities.P2?")
                  .hasMessageContaining(
                      "backpressure.targets.openai.safe-windw is not a property of the"
                          + " backpressure starter; did you mean"
                          + " backpressure.targets.openai.safe-window?");
            });
  }

  @Test
  void aMisspeltTargetsKeyFailsStartUpThoughNoTargetIsConfiguredThen() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                BackpressurePropertiesAutoConfiguration.class, BackpressureAutoConfiguration.class))
        .withPropertyValues("backpressure.targts.openai.requests-per-minute=600")
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .isInstanceOf(KnownProperties.UnknownPropertiesException.class)
                    .hasMessageContaining(
                        "did you mean backpressure.targets.openai.requests-per-minute?"));
  }

  @Test
  void aKeyFarFromAnyListsTheValidOnesAndAValueIsNoGroup() {
    runner
        .withPropertyValues("backpressure.redis.sentinel=x", "backpressure.fail-mode.kind=local")
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .hasMessageContaining(
                        "backpressure.redis.sentinel is not a property of the backpressure"
                            + " starter; the keys under backpressure.redis.* are [")
                    .hasMessageContaining("cluster-nodes")
                    .hasMessageContaining(
                        "backpressure.fail-mode.kind is not a property of the backpressure"
                            + " starter: backpressure.fail-mode takes a value, not nested keys"));
  }

  @Test
  void turnedOffNothingIsChecked() {
    runner
        .withPropertyValues("backpressure.enabled=false", "backpressure.safe-windw=10s")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void theDistanceCountsEditsOfSingleCharacters() {
    assertThat(KnownProperties.distance("safe-windw", "safe-window")).isEqualTo(1);
    assertThat(KnownProperties.distance("priorites", "priorities")).isEqualTo(1);
    assertThat(KnownProperties.distance("", "abc")).isEqualTo(3);
    assertThat(KnownProperties.distance("kitten", "sitting")).isEqualTo(3);
  }
}
