package io.backpressure.bedrock.example;

// imports:start
import io.backpressure.bedrock.GatedBedrock;
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

// imports:end

/**
 * The example of this module's README with its imports, compiled and run by {@code
 * ReadmeExampleTest}; in a package of its own, so that it imports what an application imports.
 */
public final class ReadmeExample {

  private ReadmeExample() {}

  /**
   * Asks Bedrock one question through the example's gated client.
   *
   * @param runtime {@code BedrockRuntimeClient.builder().region(Region.US_EAST_1)} and whatever
   *     else the application sets (the test points it at the mock)
   */
  public static ConverseResponse ask(BedrockRuntimeClientBuilder runtime) {
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
