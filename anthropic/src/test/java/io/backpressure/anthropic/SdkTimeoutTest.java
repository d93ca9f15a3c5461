package io.backpressure.anthropic;

import com.anthropic.client.AnthropicClient;
import com.anthropic.core.RequestOptions;
import com.anthropic.models.messages.MessageCreateParams;
import io.backpressure.client.test.SdkTimeoutSuite;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * anthropic-java's request timeout, from the client's options or the call's {@code RequestOptions},
 * is the call's deadline at the gate. Mutation tried: the transport asked without the options'
 * timeout (the expired calls are deferred).
 */
class SdkTimeoutTest extends SdkTimeoutSuite {

  @Override
  protected String target() {
    return "anthropic/claude-haiku";
  }

  @Override
  protected void call(
      RecordingGate gate,
      MockProvider provider,
      Duration clientTimeout,
      @Nullable Duration callTimeout) {
    AnthropicClient client =
        GatedAnthropic.builder()
            .gate(gate)
            .ticker(clock)
            .clientOptions(
                options ->
                    options.baseUrl(provider.url()).apiKey("sk-ant-test").timeout(clientTimeout))
            .build();
    try {
      MessageCreateParams params =
          MessageCreateParams.builder()
              .model("claude-haiku-4-5")
              .maxTokens(40)
              .addUserMessage("hello")
              .build();
      client
          .messages()
          .create(
              params,
              callTimeout == null
                  ? RequestOptions.none()
                  : RequestOptions.builder().timeout(callTimeout).build());
    } finally {
      client.close();
    }
  }
}
