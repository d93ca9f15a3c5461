package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.HttpResponseFor;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.RateLimitException;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.models.messages.StopReason;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The official Anthropic Java client, pointed at the mock's {@code /v1/messages}. */
class AnthropicClientTest {

  private static AnthropicClient client(MockProvider provider) {
    return AnthropicOkHttpClient.builder()
        .baseUrl(provider.url())
        .apiKey("sk-ant-mock")
        .maxRetries(0)
        .timeout(Duration.ofSeconds(20))
        .putHeader("x-tenant", "claude-user")
        .build();
  }

  private static MessageCreateParams params(long maxTokens) {
    return MessageCreateParams.builder()
        .model("claude-mock")
        .maxTokens(maxTokens)
        .system("abcd")
        .addUserMessage("x".repeat(36))
        .build();
  }

  private static MockProviderConfig.Builder config() {
    return MockProviderConfig.builder()
        .latencyMs(0, 0)
        .requests(LimitSpec.of(WindowModel.FIXED, 2, Duration.ofMinutes(10)))
        .completionTokens(new CompletionTokens.Fixed(24));
  }

  @Test
  void getsAMessageWithUsage() throws Exception {
    try (MockProvider provider = MockProvider.start(config().build())) {
      AnthropicClient client = client(provider);
      try {
        Message message = client.messages().create(params(100));

        assertThat(message.usage().inputTokens()).isEqualTo(10);
        assertThat(message.usage().outputTokens()).isEqualTo(24);
        assertThat(message.stopReason()).hasValue(StopReason.END_TURN);
        assertThat(message.content().get(0).asText().text()).hasSize(96);
        assertThat(provider.records().get(0).tenant()).isEqualTo("claude-user");
      } finally {
        client.close();
      }
    }
  }

  @Test
  void streamsEventsWhoseUsageGivesInputFirstAndOutputLast() throws Exception {
    try (MockProvider provider = MockProvider.start(config().latencyMs(100, 100).build())) {
      AnthropicClient client = client(provider);
      try {
        MessageAccumulator accumulator = MessageAccumulator.create();
        List<RawMessageStreamEvent> events;
        try (HttpResponseFor<StreamResponse<RawMessageStreamEvent>> response =
            client.messages().withRawResponse().createStreaming(params(10))) {
          assertThat(response.headers().values("anthropic-ratelimit-requests-limit"))
              .containsExactly("2");
          assertThat(response.headers().values("anthropic-ratelimit-requests-remaining"))
              .containsExactly("1");
          events = response.parse().stream().peek(accumulator::accumulate).toList();
        }

        assertThat(events.get(0).isMessageStart()).isTrue();
        assertThat(events.get(0).asMessageStart().message().usage().inputTokens()).isEqualTo(10);
        assertThat(events.get(1).isContentBlockStart()).isTrue();
        assertThat(events.stream().filter(RawMessageStreamEvent::isContentBlockDelta).count())
            .isEqualTo(StreamedAnswer.MAX_PIECES);
        RawMessageStreamEvent delta = events.get(events.size() - 2);
        assertThat(delta.isMessageDelta()).isTrue();
        assertThat(delta.asMessageDelta().usage().outputTokens()).isEqualTo(10);
        assertThat(events.get(events.size() - 1).isMessageStop()).isTrue();

        Message message = accumulator.message();
        assertThat(message.usage().inputTokens()).isEqualTo(10);
        assertThat(message.usage().outputTokens()).isEqualTo(10);
        assertThat(message.stopReason()).hasValue(StopReason.MAX_TOKENS);
        assertThat(message.content().get(0).asText().text()).isEqualTo(Dialect.completionText(10));
        RequestRecord record = provider.records().get(0);
        assertThat(record.completionTokens()).isEqualTo(10);
        assertThat(record.finishNanos() - record.arrivalNanos())
            .isGreaterThanOrEqualTo(100_000_000L);
      } finally {
        client.close();
      }
    }
  }

  @Test
  void surfacesSaturationAsItsRateLimitExceptionWithAnthropicHeaders() throws Exception {
    try (MockProvider provider = MockProvider.start(config().build())) {
      AnthropicClient client = client(provider);
      try {
        client.messages().create(params(10));
        try (StreamResponse<RawMessageStreamEvent> stream =
            client.messages().createStreaming(params(10))) {
          assertThat(stream.stream().count()).isPositive();
        }

        assertThatThrownBy(() -> client.messages().create(params(10)))
            .isInstanceOfSatisfying(
                RateLimitException.class,
                e -> {
                  assertThat(e.statusCode()).isEqualTo(429);
                  assertThat(e.headers().values("anthropic-ratelimit-requests-limit"))
                      .containsExactly("2");
                  assertThat(e.headers().values("anthropic-ratelimit-requests-remaining"))
                      .containsExactly("0");
                  assertThat(e.headers().values("retry-after")).hasSize(1);
                });
      } finally {
        client.close();
      }
    }
  }
}
