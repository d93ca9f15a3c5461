package io.backpressure.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The starter takes a target's limits from its {@code policy-file}: a bad one fails start-up with
 * Spring Boot's exception for that property, its message naming the policy's field at fault and the
 * allowed range.
 */
class BadLimitsPropertiesTest {
  private static final String POLICY =
      """
      target: openai/gpt-4o
      dimensions:
        requests: {per_minute: 1200}
        tokens: {per_minute: 200000, per_day: 5000000}
      priorities: {P1: 0.5, P2: 0.5}
      time_zone: America/Los_Angeles
      concurrency: {max_in_flight: 4}
      quotas:
        price: {input_per_million: 2.5, output_per_million: 10}
        classes: {P1: {tokens: 1000, per: day}}
      """;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(BackpressureAutoConfiguration.class));

  @TempDir Path dir;

  @ParameterizedTest(name = "{0} -> {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "max_in_flight: 4|max_in_flight: 0|concurrency.max_in_flight|"
            + "must be a whole number in [1, 1000000], got 0",
        "America/Los_Angeles|Atlantis/Capital|time_zone|got 'Atlantis/Capital'",
        "input_per_million: 2.5|input_per_million: -2.5|quotas.price.input_per_million|"
            + "must be a number in [0, 1000000], got -2.5",
        "classes: {P1:|classes: {P7:|quotas.classes.P7|"
            + "is a quota on a class the policy does not have; known: [P1, P2]"
      })
  void aBadLimitFailsStartUpNamingThePropertyAndTheField(
      String from, String to, String field, String message) throws IOException {
    Path file = dir.resolve("policy.yaml");
    Files.writeString(file, POLICY.replace(from, to), StandardCharsets.UTF_8);
    runner
        .withPropertyValues("backpressure.targets.openai.policy-file=file:" + file)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .rootCause()
                  .isInstanceOfSatisfying(
                      InvalidConfigurationPropertyValueException.class,
                      e ->
                          assertThat(e.getName())
                              .isEqualTo("backpressure.targets.openai.policy-file"))
                  .hasMessageContaining("field " + field + ": ")
                  .hasMessageContaining(message);
            });
  }

  /** The same policy unchanged starts: each failure above is the one change's. */
  @Test
  void theGoodPolicyStarts() throws IOException {
    Path file = dir.resolve("policy.yaml");
    Files.writeString(file, POLICY, StandardCharsets.UTF_8);
    runner
        .withPropertyValues("backpressure.targets.openai.policy-file=file:" + file)
        .run(context -> assertThat(context).hasNotFailed());
  }
}
