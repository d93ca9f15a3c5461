package io.backpressure.bedrock;

import io.backpressure.client.test.SdkTimeoutSuite;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ConversationRole;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.Message;

/**
 * The AWS SDK's timeouts, the client's {@code apiCallTimeout} and a request's own {@code
 * apiCallAttemptTimeout}, are the call's deadline at the gate. Mutation tried: the interceptor
 * admitting without the timeouts (the expired calls are deferred).
 */
class SdkTimeoutTest extends SdkTimeoutSuite {

  @Override
  protected String target() {
    return "bedrock/us-east-1/claude-3-5-haiku";
  }

  @Override
  protected void call(
      RecordingGate gate,
      MockProvider provider,
      Duration clientTimeout,
      @Nullable Duration callTimeout) {
    ConverseRequest.Builder request =
        ConverseRequest.builder()
            .modelId("anthropic.claude-3-5-haiku-20241022-v1:0")
            .messages(
                Message.builder()
                    .role(ConversationRole.USER)
                    .content(ContentBlock.fromText("hello"))
                    .build())
            .inferenceConfig(config -> config.maxTokens(40));
    if (callTimeout != null) {
      request.overrideConfiguration(o -> o.apiCallAttemptTimeout(callTimeout));
    }
    try (BedrockRuntimeClient client =
        GatedBedrock.builder()
            .gate(gate)
            .ticker(clock)
            .build(
                TestBedrock.client(provider)
                    .overrideConfiguration(o -> o.apiCallTimeout(clientTimeout)))) {
      client.converse(request.build());
    }
  }
}
