package io.backpressure.bedrock;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.client.ProviderFeedback;
import io.backpressure.client.test.TenantLoad;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.CompletionTokens;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.RequestRecord;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
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
import software.amazon.awssdk.services.bedrockruntime.model.ThrottlingException;

/**
 * Four tenants share a Bedrock model whose quota is 10 requests per window (the mock's Bedrock
 * dialect, fixed one-second windows), through one gate on the wall clock and the AWS SDK's
 * synchronous runtime client: no {@code ThrottlingException} reaches a caller, every call is
 * answered, and what the gate released matches what the provider counted.
 */
class BedrockTenantsIT {

  private static final int TENANTS = 4;
  private static final int CALLS = 8;

  @Test
  void fourTenantsAtACapOfTenPerWindowMeetNo429() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .requests(LimitSpec.of(WindowModel.FIXED, 10, Duration.ofSeconds(1)))
            .latencyMs(20, 60)
            .completionTokens(new CompletionTokens.Uniform(10, 30))
            .build();
    // 9 a second and a burst of 1: at most 10 in any one-second window.
    Policy policy =
        Policy.builder("bedrock/us-east-1/claude-3-5-haiku")
            .dimension("requests", 9, 1)
            .tokensPerSecond(1_000_000)
            .priority("P1", 1)
            .build();
    RecordingGate gate = new RecordingGate(InMemoryGate.create(policy));
    try (MockProvider provider = MockProvider.start(config);
        BedrockRuntimeClient client =
            GatedBedrock.builder()
                .gate(gate)
                .feedback(ProviderFeedback.toGate(gate))
                .build(
                    BedrockRuntimeClient.builder()
                        .region(Region.US_EAST_1)
                        .credentialsProvider(
                            StaticCredentialsProvider.create(
                                AwsBasicCredentials.create("AKIDEXAMPLE", "secret-example")))
                        .endpointOverride(URI.create(provider.url())))) {
      TenantLoad.Outcome outcome =
          TenantLoad.run(
              TENANTS,
              CALLS,
              e -> e instanceof ThrottlingException,
              Duration.ofSeconds(60),
              i -> client.converse(request("call " + i)));

      assertThat(outcome.refused()).as("429s that reached a caller").isZero();
      assertThat(outcome.answered()).isEqualTo(TENANTS * CALLS);
      long counted = 0;
      for (RequestRecord record : provider.records()) {
        assertThat(record.status()).isEqualTo(200);
        counted += record.promptTokens() + record.completionTokens();
      }
      double released =
          gate.releases().stream()
              .filter(RecordingGate.Release::applied)
              .map(RecordingGate.Release::actual)
              .mapToDouble(c -> c.amount("tokens"))
              .sum();
      assertThat(released).isCloseTo(counted, org.assertj.core.data.Percentage.withPercentage(1));
      assertThat(gate.releasedWith()).allSatisfy(c -> assertThat(c.amount("requests")).isOne());
      assertThat(gate.outstanding()).isZero();
    }
  }

  private static ConverseRequest request(String text) {
    return ConverseRequest.builder()
        .modelId("anthropic.claude-3-5-haiku-20241022-v1:0")
        .messages(
            Message.builder()
                .role(ConversationRole.USER)
                .content(ContentBlock.fromText(text))
                .build())
        .inferenceConfig(inference -> inference.maxTokens(40))
        .build();
  }
}
