package io.backpressure.admin;

import static io.backpressure.admin.AdminTarget.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.redis.RedisGate;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code admin show} reports what the target learned from its provider, in text and JSON. */
class ShowFeedbackTest {
  private final AdminTarget target = new AdminTarget();

  @Test
  void showsEffectiveCapsLimitsAndCooldowns() throws Exception {
    Policy policy =
        Policy.builder(TARGET)
            .requestsPerSecond(60)
            .tokensPerSecond(6_000)
            .priority("P1", 1)
            .feedback(FeedbackPolicy.builder().period(Duration.ofSeconds(1)).build())
            .build();
    try (RedisGate gate = target.gate(policy)) {
      JsonNode before = new ObjectMapper().readTree(target.show("--json").out()).path("feedback");
      assertThat(before.path("dimensions").path("requests").path("effective").asDouble())
          .isEqualTo(60);
      assertThat(before.path("dimensions").path("requests").path("provider_limit").isNull())
          .isTrue();

      gate.feedback(null, ProviderSignal.ofStatus(200).withLimit("tokens", 3_000.0, null, null));
      gate.feedback(null, ProviderSignal.rateLimited("requests", Duration.ofSeconds(30)));
    }

    JsonNode json = new ObjectMapper().readTree(target.show("--json").out()).path("feedback");
    assertThat(json.path("enabled").asBoolean()).isTrue();
    assertThat(json.path("signals").asLong()).isEqualTo(2);
    assertThat(json.path("decreases").asLong()).isEqualTo(1);
    assertThat(json.path("adoptions").asLong()).isEqualTo(1);
    JsonNode requests = json.path("dimensions").path("requests");
    assertThat(requests.path("configured").asDouble()).isEqualTo(60);
    assertThat(requests.path("effective").asDouble()).isEqualTo(48);
    assertThat(requests.path("cooldown_s").asDouble()).isBetween(20.0, 30.0);
    assertThat(requests.path("spent_s").asDouble())
        .as("the 429's retry-after: the provider's window is spent")
        .isBetween(20.0, 30.0);
    JsonNode tokens = json.path("dimensions").path("tokens");
    assertThat(tokens.path("effective").asDouble()).isEqualTo(2_850);
    assertThat(tokens.path("provider_limit").asDouble()).isEqualTo(3_000);
    assertThat(
            new ObjectMapper()
                .readTree(target.show("--json").out())
                .path("policy")
                .path("dimensions")
                .path("requests")
                .path("per_second")
                .asDouble())
        .as("C_d as configured")
        .isEqualTo(60);

    AdminCommandTest.Run text = target.show();
    assertThat(text.code()).as(text.err()).isZero();
    assertThat(text.out())
        .contains(
            "feedback         on (period 1s",
            "effective/s",
            "provider limit/s",
            "2850",
            "3000",
            "limits adopted 1",
            "decreases 1");
  }
}
