package io.backpressure.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.GateContext;
import io.backpressure.client.test.LoopbackResponder;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.Cost;
import io.backpressure.core.ManualClock;
import io.backpressure.core.testing.RecordingGate;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Streamed chat completions through the gated openai-java client, against a loopback responder that
 * speaks OpenAI's server-sent events.
 */
class GatedOpenAIStreamTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static String chunk(String content, String finish) {
    return "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
        + "\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
        + content
        + "\"},\"finish_reason\":"
        + (finish == null ? "null" : "\"" + finish + "\"")
        + "}]}";
  }

  private static final String USAGE =
      "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o-mini\","
          + "\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3,\"total_tokens\":15}}";

  private final RecordingGate gate =
      TestGates.recording("openai/gpt-4o-mini", 10, 100_000, new ManualClock());

  private OpenAIClient client(LoopbackResponder responder) {
    return GatedOpenAI.builder()
        .gate(gate)
        .clientOptions(
            options ->
                options
                    .baseUrl(responder.baseUrl() + "/v1")
                    .apiKey("sk-test")
                    .timeout(Duration.ofSeconds(20)))
        .build();
  }

  private static ChatCompletionCreateParams params() {
    return ChatCompletionCreateParams.builder()
        .model("gpt-4o-mini")
        .addUserMessage("hello world")
        .maxCompletionTokens(50)
        .build();
  }

  @Test
  void releasesWithTheUsageOfTheFinalChunkItAskedFor() throws Exception {
    List<String> events =
        List.of(
            chunk("Hello", null),
            chunk(" there", null),
            chunk(" friend", "stop"),
            USAGE,
            "data: [DONE]");
    try (LoopbackResponder responder =
            LoopbackResponder.start(LoopbackResponder.Answer.events(events, false));
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client = client(responder);
      try (StreamResponse<ChatCompletionChunk> stream =
          client.chat().completions().createStreaming(params())) {
        String text =
            stream.stream()
                .flatMap(c -> c.choices().stream())
                .map(choice -> choice.delta().content().orElse(""))
                .collect(Collectors.joining());
        assertThat(text).isEqualTo("Hello there friend");
      } finally {
        client.close();
      }
      assertThat(responder.requestHeaders().get(0))
          .doesNotContainKeys(GateContext.HEADERS.toArray(String[]::new));
      JsonNode sent = JSON.readTree(responder.requests().get(0));
      assertThat(sent.path("stream").asBoolean()).isTrue();
      assertThat(sent.path("stream_options").path("include_usage").asBoolean()).isTrue();
      assertThat(gate.releasedWith()).containsExactly(Cost.requests(1).tokens(15));
    }
  }

  @Test
  void keepsTheCallersOwnStreamOptions() throws Exception {
    List<String> events = List.of(chunk("Hi", "stop"), "data: [DONE]");
    try (LoopbackResponder responder =
            LoopbackResponder.start(LoopbackResponder.Answer.events(events, false));
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client = client(responder);
      ChatCompletionCreateParams params =
          params().toBuilder()
              .streamOptions(
                  com.openai.models.chat.completions.ChatCompletionStreamOptions.builder()
                      .includeUsage(false)
                      .build())
              .build();
      try (StreamResponse<ChatCompletionChunk> stream =
          client.chat().completions().createStreaming(params)) {
        assertThat(stream.stream().count()).isEqualTo(1);
      } finally {
        client.close();
      }
      assertThat(
              JSON.readTree(responder.requests().get(0))
                  .path("stream_options")
                  .path("include_usage")
                  .asBoolean())
          .isFalse();
      // No usage reported: released with the prompt estimate and the streamed text's tokens.
      assertThat(gate.releasedWith()).containsExactly(Cost.requests(1).tokens(9 + 1));
    }
  }

  @Test
  void aStreamCancelledMidwayReleasesWhatItDelivered() throws Exception {
    List<String> events = List.of(chunk("Hello", null), chunk(" world", null));
    try (LoopbackResponder responder =
            LoopbackResponder.start(LoopbackResponder.Answer.events(events, true));
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client = client(responder);
      try (StreamResponse<ChatCompletionChunk> stream =
          client.chat().completions().createStreaming(params())) {
        Iterator<ChatCompletionChunk> chunks = stream.stream().iterator();
        chunks.next();
        chunks.next();
        assertThat(gate.releases()).isEmpty();
      } finally {
        client.close();
      }
      // The provider stalled; closing the stream released 9 prompt tokens (estimate) and the two
      // tokens "Hello world" streamed so far.
      assertThat(gate.releasedWith()).containsExactly(Cost.requests(1).tokens(9 + 2));
      assertThat(gate.outstanding()).isZero();
    }
  }

  @Test
  void aStreamTheProviderCutsIsReleasedWhenItEnds() throws Exception {
    List<String> events = List.of(chunk("Hello", null), chunk(" world", null));
    try (LoopbackResponder responder =
            LoopbackResponder.start(LoopbackResponder.Answer.events(events, false));
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client = client(responder);
      try (StreamResponse<ChatCompletionChunk> stream =
          client.chat().completions().createStreaming(params())) {
        assertThat(stream.stream().count()).isEqualTo(2);
      } finally {
        client.close();
      }
      assertThat(gate.releasedWith()).containsExactly(Cost.requests(1).tokens(9 + 2));
    }
  }
}
