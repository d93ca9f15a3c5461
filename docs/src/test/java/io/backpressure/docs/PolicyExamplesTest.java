package io.backpressure.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Limits;
import io.backpressure.core.Policy;
import io.backpressure.core.PriorityClass;
import io.backpressure.policy.yaml.PolicyYaml;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PolicyExamplesTest {

  @Test
  void theBuilderExampleSetsWhatItsCommentsSay() {
    Policy policy = PolicyExamples.inCode();
    assertThat(policy.safeWindow()).isEqualTo(Duration.ofMinutes(1));
    assertThat(policy.priorities().get(2))
        .isEqualTo(new PriorityClass("P3", 0.2, Duration.ofSeconds(30)));
    assertThat(policy.tenantWeight("acme")).isEqualTo(2 * policy.tenantWeight("anyone"));
    assertThat(policy.reservation()).isTrue();
  }

  @Test
  void theLimitsExampleSetsWhatItsCommentsSayAndEqualsItsYaml() throws Exception {
    Policy policy = PolicyExamples.withLimits();
    Limits limits = policy.limits();
    assertThat(limits.timeZone()).isEqualTo(ZoneId.of("America/Los_Angeles"));
    assertThat(limits.concurrency())
        .isEqualTo(
            new Limits.Concurrency(64, Duration.ofSeconds(60), Map.of("P2", 16), Map.of(), 8));
    assertThat(limits.tenantQuota("anyone")).isEqualTo(Limits.Quota.tokensPerDay(1_000_000));
    assertThat(limits.tenantQuota("acme")).isEqualTo(Limits.Quota.currencyPerMonth(50));
    assertThat(limits.price().of(1_000_000, 1_000_000)).isEqualTo(12.5);
    String page = Files.readString(Path.of("policies.md"));
    Matcher yaml =
        Pattern.compile("## Beyond a per-second rate.*?```yaml\\n(.*?)```", Pattern.DOTALL)
            .matcher(page);
    assertThat(yaml.find()).as("the section's YAML example").isTrue();
    assertThat(PolicyYaml.parse(yaml.group(1))).isEqualTo(policy);
  }

  @Test
  void theAdaptiveConcurrencyExampleEqualsItsYaml() throws Exception {
    Policy policy = PolicyExamples.withAdaptiveConcurrency();
    assertThat(policy.limits().concurrency().adaptive())
        .isEqualTo(new Limits.Adaptive(4, 256, Duration.ofSeconds(5)));
    String page = Files.readString(Path.of("policies.md"));
    Matcher yaml =
        Pattern.compile("\\*\\*Adaptive concurrency\\.\\*\\*.*?```yaml\\n(.*?)```", Pattern.DOTALL)
            .matcher(page);
    assertThat(yaml.find()).as("the paragraph's YAML example").isTrue();
    assertThat(PolicyYaml.parse(yaml.group(1))).isEqualTo(policy);
  }

  @Test
  void theDocumentedFileReadsAndRoundTrips() throws Exception {
    Path file = Path.of("policy.yaml");
    assertThat(PolicyExamples.fromFile(file)).isEqualTo(PolicyYaml.read(file));
  }

  @Test
  void aHotUpdateChangesOnlyTheWeightsNamed() {
    Policy before = PolicyExamples.inCode();
    Policy after = PolicyExamples.hotUpdate(before);
    assertThat(after.priorities().get(2).weight()).isEqualTo(0.1);
    assertThat(after.tenantWeight("acme")).isEqualTo(3.0);
    assertThat(after.dimensions()).isEqualTo(before.dimensions());
  }
}
