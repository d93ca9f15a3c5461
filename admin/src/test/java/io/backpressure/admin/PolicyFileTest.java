package io.backpressure.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.backpressure.core.Dimension;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.policy.yaml.PolicyYaml;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The documented policy file, {@code docs/policy.yaml}: it loads, and it shows every key. */
class PolicyFileTest {
  private static final Path FILE = Path.of("..", "docs", "policy.yaml");

  @Test
  void theDocumentedExampleLoads() throws IOException {
    Policy policy = PolicyYaml.read(FILE);
    assertThat(policy.target()).isEqualTo("openai/gpt-4o");
    assertThat(policy.dimensions())
        .containsExactly(
            new Dimension("requests", 60, 60), new Dimension("tokens", 12_000, 12_000));
    assertThat(policy.priorityNames()).containsExactly("P1", "P2", "P3");
    assertThat(policy.tenantWeight("acme")).isEqualTo(2.0);
    assertThat(policy.tenantWeight("anyone")).isEqualTo(1.0);
    assertThat(policy.safeWindow()).isEqualTo(Duration.ofSeconds(60));
    assertThat(policy.grantTtl()).isEqualTo(Duration.ofMinutes(15));
    assertThat(policy.feedback()).isEqualTo(FeedbackPolicy.DEFAULT);
    assertThat(PolicyYaml.parse(PolicyYaml.render(policy))).isEqualTo(policy);
  }

  @Test
  void theDocumentedExampleUsesEveryKey() throws IOException {
    JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(FILE));
    Set<String> keys = new TreeSet<>();
    collect(root, "", keys);
    assertThat(keys)
        .contains(
            "target",
            "dimensions.requests.per_minute",
            "dimensions.requests.burst",
            "priorities.P1",
            "tenants.default_weight",
            "tenants.weights.acme",
            "reservation.enabled",
            "reservation.default_max_tokens",
            "idle_ttl",
            "safe_window",
            "share_horizon",
            "grant_ttl",
            "feedback.enabled",
            "feedback.period",
            "feedback.decrease",
            "feedback.increase",
            "feedback.floor",
            "feedback.headroom",
            "feedback.cooldown",
            "feedback.outside_weight",
            "feedback.ramp.fraction",
            "feedback.ramp.duration",
            "feedback.outage_errors",
            "dimensions.requests.per_month",
            "dimensions.tokens.per_day",
            "time_zone",
            "concurrency.max_in_flight",
            "concurrency.lease_ttl",
            "quotas.price.input_per_million",
            "quotas.price.output_per_million",
            "quotas.default_tenant.tokens",
            "quotas.default_tenant.per",
            "quotas.tenants.acme.currency",
            "quotas.tenants.acme.per",
            "quotas.classes.P3.tokens",
            "quotas.classes.P3.per");
  }

  @Test
  void theAdminCommandAcceptsIt() {
    AdminCommandTest.Run run = AdminCommandTest.run("apply", "-f", FILE.toString(), "--dry-run");
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out()).contains("valid: ", "openai/gpt-4o");
  }

  private static void collect(JsonNode node, String prefix, Set<String> keys) {
    node.fields()
        .forEachRemaining(
            e -> {
              String key = prefix + e.getKey();
              if (e.getValue().isObject()) {
                collect(e.getValue(), key + ".", keys);
              } else {
                keys.add(key);
              }
            });
  }
}
