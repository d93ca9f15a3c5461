package io.backpressure.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import io.backpressure.client.GateContext;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.ManualClock;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.temporal.Backpressure;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Inside a Temporal activity a deferral ends the activity the way ActivityGate does. */
class GatedChatModelActivityTest {

  @ActivityInterface
  public interface Chat {
    String chat(String prompt);
  }

  private final TestActivityEnvironment env = TestActivityEnvironment.newInstance();

  @AfterEach
  void close() {
    env.close();
  }

  @Test
  void aDeferralEndsTheActivityWithTheDeferredFailureCarryingDelta() throws Exception {
    ManualClock clock = new ManualClock();
    RecordingGate gate = TestGates.recording("openai/gpt-4o-mini", 1, 10_000, clock);
    try (MockProvider provider =
        MockProvider.start(MockProviderConfig.builder().latencyMs(0, 0).build())) {
      ChatModel model =
          GatedChatModel.builder(
                  OpenAiChatModel.builder()
                      .baseUrl(provider.baseUrl())
                      .apiKey("sk-mock")
                      .modelName("gpt-4o-mini")
                      .maxRetries(0)
                      .timeout(Duration.ofSeconds(20))
                      .build(),
                  gate)
              .defaultContext(GateContext.of("acme", "P1"))
              .build();
      env.registerActivitiesImplementations((Chat) model::chat);
      Chat activity =
          env.newActivityStub(
              Chat.class,
              ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(30)).build());

      String first = activity.chat("x".repeat(40));
      Throwable second = catchThrowable(() -> activity.chat("x".repeat(40)));

      assertThat(first).isNotEmpty();
      assertThat(second).isInstanceOf(ActivityFailure.class);
      assertThat(second.getCause())
          .isInstanceOfSatisfying(
              ApplicationFailure.class,
              failure -> {
                assertThat(failure.getType()).isEqualTo(Backpressure.DEFERRED);
                long retryAfterMillis = failure.getDetails().get(0, Long.class);
                assertThat(retryAfterMillis).isBetween(1L, 1_000L);
              });
      assertThat(provider.records()).hasSize(1);
      TestGates.assertReleasedAsCounted(gate, provider);
    }
  }
}
