package io.backpressure.bedrock;

import io.backpressure.client.ProviderFeedback;
import io.backpressure.client.test.SharedQuota;
import io.backpressure.client.test.TenantLoad;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import java.time.Duration;
import org.junit.jupiter.api.Test;
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

  @Test
  void fourTenantsAtACapOfTenPerWindowMeetNo429() throws Exception {
    RecordingGate gate = SharedQuota.gate("bedrock/us-east-1/claude-3-5-haiku");
    try (MockProvider provider = MockProvider.start(SharedQuota.provider());
        BedrockRuntimeClient client =
            GatedBedrock.builder()
                .gate(gate)
                .feedback(ProviderFeedback.toGate(gate))
                .build(TestBedrock.client(provider))) {
      TenantLoad.Outcome outcome =
          TenantLoad.run(
              SharedQuota.TENANTS,
              SharedQuota.CALLS,
              e -> e instanceof ThrottlingException,
              Duration.ofSeconds(60),
              i -> client.converse(request("call " + i)));

      SharedQuota.assertAnsweredWithin(outcome, provider, gate);
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
