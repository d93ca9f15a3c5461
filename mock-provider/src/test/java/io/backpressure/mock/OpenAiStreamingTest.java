package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponseFor;
import com.openai.core.http.StreamResponse;
import com.openai.errors.RateLimitException;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code "stream": true} on the chat completions endpoint, read by the official OpenAI client. */
class OpenAiStreamingTest {

  private static OpenAIClient client(MockProvider provider) {
    return OpenAIOkHttpClient.builder()
        .baseUrl(provider.baseUrl())
        .apiKey("sk-mock")
        .maxRetries(0)
        .responseValidation(true)
        .timeout(Duration.ofSeconds(20))
        .putHeader("x-tenant", "streamer")
        .build();
  }

  private static ChatCompletionCreateParams params(boolean includeUsage, long maxTokens) {
    ChatCompletionCreateParams.Builder params =
        ChatCompletionCreateParams.builder()
            .model("gpt-4o-mini")
            .addUserMessage("x".repeat(80))
            .maxCompletionTokens(maxTokens);
    if (includeUsage) {
      params.streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build());
    }
    return params.build();
  }

  @Test
  void streamsTheTextInChunksAndEndsWithTheUsageChunkWhenAsked() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(200, 200)
            .requests(LimitSpec.of(WindowModel.FIXED, 10, Duration.ofMinutes(1)))
            .completionTokens(new CompletionTokens.Fixed(30))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      OpenAIClient client = client(provider);
      try {
        ChatCompletionAccumulator accumulator = ChatCompletionAccumulator.create();
        List<ChatCompletionChunk> chunks;
        try (HttpResponseFor<StreamResponse<ChatCompletionChunk>> response =
            client.chat().completions().withRawResponse().createStreaming(params(true, 100))) {
          assertThat(response.statusCode()).isEqualTo(200);
          assertThat(response.headers().values("x-ratelimit-limit-requests")).containsExactly("10");
          assertThat(response.headers().values("x-ratelimit-remaining-requests"))
              .containsExactly("9");
          assertThat(response.headers().values("content-type"))
              .singleElement()
              .satisfies(type -> assertThat(type).startsWith("text/event-stream"));
          chunks = response.parse().stream().peek(accumulator::accumulate).toList();
        }

        // Opening chunk with the role, 8 text pieces, the finish chunk, the usage chunk.
        assertThat(chunks).hasSize(1 + StreamedAnswer.MAX_PIECES + 2);
        assertThat(chunks).allSatisfy(c -> assertThat(c.id()).isEqualTo(chunks.get(0).id()));
        assertThat(chunks.subList(0, chunks.size() - 1))
            .allSatisfy(c -> assertThat(c.usage()).isEmpty());
        ChatCompletionChunk last = chunks.get(chunks.size() - 1);
        assertThat(last.choices()).isEmpty();
        assertThat(last.usage())
            .hasValueSatisfying(
                usage -> {
                  assertThat(usage.promptTokens()).isEqualTo(20);
                  assertThat(usage.completionTokens()).isEqualTo(30);
                  assertThat(usage.totalTokens()).isEqualTo(50);
                });
        ChatCompletion whole = accumulator.chatCompletion();
        assertThat(whole.choices().get(0).message().content()).hasValue(Dialect.completionText(30));
        assertThat(whole.choices().get(0).finishReason())
            .isEqualTo(ChatCompletion.Choice.FinishReason.STOP);

        RequestRecord record = provider.records().get(0);
        assertThat(record.status()).isEqualTo(200);
        assertThat(record.tenant()).isEqualTo("streamer");
        assertThat(record.completionTokens()).isEqualTo(30);
        assertThat(record.finishNanos() - record.arrivalNanos())
            .isGreaterThanOrEqualTo(200_000_000L);
        assertThat(provider.summary().inFlight()).isZero();
      } finally {
        client.close();
      }
    }
  }

  @Test
  void withoutIncludeUsageNoChunkCarriesUsageAndMaxTokensCutsTheText() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .completionTokens(new CompletionTokens.Fixed(30))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      OpenAIClient client = client(provider);
      try {
        ChatCompletionAccumulator accumulator = ChatCompletionAccumulator.create();
        List<ChatCompletionChunk> chunks;
        try (StreamResponse<ChatCompletionChunk> stream =
            client.chat().completions().createStreaming(params(false, 5))) {
          chunks = stream.stream().peek(accumulator::accumulate).toList();
        }

        assertThat(chunks).allSatisfy(c -> assertThat(c.usage()).isEmpty());
        ChatCompletion whole = accumulator.chatCompletion();
        assertThat(whole.choices().get(0).message().content()).hasValue(Dialect.completionText(5));
        assertThat(whole.choices().get(0).finishReason())
            .isEqualTo(ChatCompletion.Choice.FinishReason.LENGTH);
        assertThat(provider.records().get(0).completionTokens()).isEqualTo(5);
      } finally {
        client.close();
      }
    }
  }

  @Test
  void aStreamedCallOverTheCapGetsThePlain429() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .requests(LimitSpec.of(WindowModel.FIXED, 1, Duration.ofMinutes(10)))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      OpenAIClient client = client(provider);
      try {
        try (StreamResponse<ChatCompletionChunk> stream =
            client.chat().completions().createStreaming(params(true, 5))) {
          assertThat(stream.stream().count()).isPositive();
        }
        assertThatThrownBy(
                () -> {
                  try (StreamResponse<ChatCompletionChunk> stream =
                      client.chat().completions().createStreaming(params(true, 5))) {
                    stream.stream().count();
                  }
                })
            .isInstanceOfSatisfying(
                RateLimitException.class,
                e -> {
                  assertThat(e.type()).hasValue("requests");
                  assertThat(e.headers().values("retry-after-ms")).hasSize(1);
                });
      } finally {
        client.close();
      }
    }
  }
}
