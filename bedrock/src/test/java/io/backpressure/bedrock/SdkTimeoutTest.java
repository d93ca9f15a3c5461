package io.backpressure.bedrock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.client.DeferredException;
import io.backpressure.client.ExpiredException;
import io.backpressure.client.GateContext;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.ManualClock;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ConversationRole;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.Message;

/**
 * The AWS SDK's timeouts, the client's {@code apiCallTimeout} and a request's own {@code
 * apiCallAttemptTimeout}, are the call's deadline at the gate: with the burst's one request spent,
 * a call whose timeout ends before its turn (a second away) fails with {@link ExpiredException} at
 * once and is not sent, and one whose timeout outlasts its turn is deferred as before. The gate's
 * clock is the client's ticker, so the deadlines the gate is asked with are exact.
 */
class SdkTimeoutTest {

  private final ManualClock clock = new ManualClock();
  private final RecordingGate gate =
      TestGates.recording("bedrock/us-east-1/claude-3-5-haiku", 1, 100_000, clock);

  private BedrockRuntimeClient client(MockProvider provider, Duration apiCallTimeout) {
    return GatedBedrock.builder()
        .gate(gate)
        .ticker(clock)
        .build(
            BedrockRuntimeClient.builder()
                .region(Region.US_EAST_1)
                .credentialsProvider(
                    StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(
                            "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")))
                .endpointOverride(URI.create(provider.url()))
                .overrideConfiguration(o -> o.apiCallTimeout(apiCallTimeout)));
  }

  private static ConverseRequest request() {
    return ConverseRequest.builder()
        .modelId("anthropic.claude-3-5-haiku-20241022-v1:0")
        .messages(
            Message.builder()
                .role(ConversationRole.USER)
                .content(ContentBlock.fromText("hello"))
                .build())
        .inferenceConfig(config -> config.maxTokens(40))
        .build();
  }

  /**
   * The client's API call timeout, then a request's own shorter attempt timeout under the client's
   * longer API call timeout. Mutation tried: the interceptor admitting without the timeouts (both
   * calls are deferred).
   */
  @Test
  void aCallWhoseTimeoutEndsBeforeItsTurnFailsExpiredAtOnceWithoutBeingSent() throws Exception {
    TestGates.spendTheBurst(gate);
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open();
        BedrockRuntimeClient shortTimeout = client(provider, Duration.ofMillis(300));
        BedrockRuntimeClient longTimeout = client(provider, Duration.ofSeconds(20))) {
      assertThatThrownBy(() -> shortTimeout.converse(request()))
          .isInstanceOfSatisfying(
              ExpiredException.class,
              e -> assertThat(e.getMessage()).contains("after its deadline of 300 ms"));
      assertThatThrownBy(
              () ->
                  longTimeout.converse(
                      request().toBuilder()
                          .overrideConfiguration(
                              o -> o.apiCallAttemptTimeout(Duration.ofMillis(400)))
                          .build()))
          .isInstanceOf(ExpiredException.class);

      assertThat(gate.requests().subList(1, 3))
          .extracting(r -> r.deadline())
          .containsExactly(Duration.ofMillis(300), Duration.ofMillis(400));
      assertThat(provider.records()).isEmpty();
      assertThat(gate.outstanding()).isZero();
    }
  }

  @Test
  void aCallWhoseTimeoutOutlastsItsTurnIsDeferredAsBefore() throws Exception {
    TestGates.spendTheBurst(gate);
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open();
        BedrockRuntimeClient client = client(provider, Duration.ofSeconds(20))) {
      assertThatThrownBy(() -> client.converse(request()))
          .isInstanceOfSatisfying(
              DeferredException.class,
              e -> assertThat(e.retryAfter()).isPositive().isLessThan(Duration.ofSeconds(20)));

      assertThat(gate.requests().get(1).deadline()).isEqualTo(Duration.ofSeconds(20));
      assertThat(provider.records()).isEmpty();
    }
  }
}
