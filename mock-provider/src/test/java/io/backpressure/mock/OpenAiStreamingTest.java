package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponseFor;
import com.openai.core.http.StreamResponse;
import com.openai.errors.RateLimitException;
import com.openai.errors.SseException;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import java.util.Iterator;
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

  /**
   * A stream cut by the overloaded fault gives the tokens limiter back the completion it never
   * delivered: with 700 tokens per 10 minutes, a second call of the first's full size (about 420)
   * fits only because of the refund, and the tokens the limiter reports left are the cap less what
   * the two calls were really served.
   *
   * <p>Mutation tried: no refund (the second call is refused on tokens).
   */
  @Test
  void aCutStreamIsChargedOnlyWhatItDelivered() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(2_000, 2_000)
            .tokens(LimitSpec.of(WindowModel.FIXED, 700, Duration.ofMinutes(10)))
            .completionTokens(new CompletionTokens.Fixed(400))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      OpenAIClient client = client(provider);
      try {
        try (StreamResponse<ChatCompletionChunk> stream =
            client.chat().completions().createStreaming(params(true, 500))) {
          Iterator<ChatCompletionChunk> chunks = stream.stream().iterator();
          while (chunks.next().choices().stream()
              .allMatch(choice -> choice.delta().content().orElse("").isEmpty())) {
            // up to the first text
          }
          provider.setFaults(new Faults(false, 1, true));
          assertThatThrownBy(
                  () -> {
                    while (chunks.hasNext()) {
                      chunks.next();
                    }
                  })
              .isInstanceOf(SseException.class);
        }
        provider.setFaults(Faults.NONE);
        RequestRecord cut = provider.records().get(0);
        assertThat(cut.completionTokens()).isBetween(1L, 399L);
        assertThat(cut.chargedTokens()).isEqualTo(cut.promptTokens() + cut.completionTokens());

        try (HttpResponseFor<ChatCompletion> whole =
            client.chat().completions().withRawResponse().create(params(false, 500))) {
          assertThat(whole.statusCode()).isEqualTo(200);
          RequestRecord second = provider.records().get(1);
          assertThat(second.chargedTokens()).isEqualTo(second.promptTokens() + 400);
          assertThat(whole.headers().values("x-ratelimit-remaining-tokens"))
              .containsExactly(Long.toString(700 - cut.chargedTokens() - second.chargedTokens()));
        }
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
