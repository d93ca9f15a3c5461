package io.backpressure.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Policy;
import io.backpressure.core.PriorityClass;
import io.backpressure.policy.yaml.PolicyYaml;
import java.nio.file.Path;
import java.time.Duration;
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
