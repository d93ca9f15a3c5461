package io.backpressure.bedrock;

import io.backpressure.client.GateContext;
import io.backpressure.client.ProviderFeedback;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClientBuilder;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ConversationRole;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseResponse;
import software.amazon.awssdk.services.bedrockruntime.model.Message;

/** The example of this module's README, compiled and run by {@code ReadmeExampleTest}. */
final class ReadmeExample {

  private ReadmeExample() {}

  /**
   * @param runtime {@code BedrockRuntimeClient.builder().region(Region.US_EAST_1)} and whatever
   *     else the application sets (the test points it at the mock)
   */
  static ConverseResponse ask(BedrockRuntimeClientBuilder runtime) {
    // example:start
    Gate gate =
        InMemoryGate.create(
            Policy.builder("bedrock/us-east-1/claude-3-5-haiku") // the model's quota
                .requestsPerMinute(250)
                .tokensPerMinute(2_000_000) // input and output together
                .priority("P1", 0.7)
                .priority("P2", 0.3)
                .build()); // or the Redis gate
    try (BedrockRuntimeClient bedrock =
            GatedBedrock.builder()
                .gate(gate) // the SDK's retries are turned off
                .feedback(ProviderFeedback.toGate(gate)) // ThrottlingException
                .build(runtime);
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      return bedrock.converse(
          ConverseRequest.builder()
              .modelId("anthropic.claude-3-5-haiku-20241022-v1:0")
              .messages(
                  Message.builder()
                      .role(ConversationRole.USER)
                      .content(ContentBlock.fromText("Say hello"))
                      .build())
              .inferenceConfig(config -> config.maxTokens(50))
              .build());
    }
    // example:end
  }
}
