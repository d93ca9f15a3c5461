package io.backpressure.openai;

import com.openai.client.OpenAIClient;
import com.openai.core.RequestOptions;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.test.SdkTimeoutSuite;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * openai-java's request timeout, from the client's options or the call's {@code RequestOptions}, is
 * the call's deadline at the gate. Mutation tried: the transport asked without the options' timeout
 * (the expired calls are deferred).
 */
class SdkTimeoutTest extends SdkTimeoutSuite {

  @Override
  protected String target() {
    return "openai/gpt-4o-mini";
  }

  @Override
  protected void call(
      RecordingGate gate,
      MockProvider provider,
      Duration clientTimeout,
      @Nullable Duration callTimeout) {
    OpenAIClient client =
        GatedOpenAI.builder()
            .gate(gate)
            .ticker(clock)
            .clientOptions(
                options ->
                    options.baseUrl(provider.baseUrl()).apiKey("sk-test").timeout(clientTimeout))
            .build();
    try {
      ChatCompletionCreateParams params =
          ChatCompletionCreateParams.builder()
              .model("gpt-4o-mini")
              .addUserMessage("hello")
              .maxCompletionTokens(40)
              .build();
      client
          .chat()
          .completions()
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
