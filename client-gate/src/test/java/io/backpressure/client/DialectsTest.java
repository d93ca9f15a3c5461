package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.backpressure.tokens.CharsPerToken;
import java.io.UncheckedIOException;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** What the dialects read alike, and the JSON stream tally they build on. */
class DialectsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }

  @Test
  void postToMatchesAPostWhosePathEndsWithTheTail() {
    assertThat(Dialects.postTo("POST", List.of("v1", "chat", "completions"), "chat", "completions"))
        .isTrue();
    assertThat(Dialects.postTo("GET", List.of("v1", "chat", "completions"), "chat", "completions"))
        .isFalse();
    assertThat(Dialects.postTo("POST", List.of("v1", "completions"), "chat", "completions"))
        .isFalse();
    assertThat(Dialects.postTo("POST", List.of("completions"), "chat", "completions")).isFalse();
  }

  @Test
  void aRequiredFieldThatIsMissingOrBlankIsNamedInTheError() throws Exception {
    assertThat(Dialects.requireText(json("{\"model\":\"gpt-4o\"}"), "model", "in the body"))
        .isEqualTo("gpt-4o");
    assertThatThrownBy(
            () -> Dialects.requireText(json("{\"model\":\" \"}"), "model", "in the body"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("model must be a non-empty string in the body");
    assertThatThrownBy(() -> Dialects.requireArray(json("{\"messages\":{}}"), "messages"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("messages must be an array in the request body");
  }

  @Test
  void aUsageNeedsBothCountsAndIsNeverNegative() throws Exception {
    assertThat(Dialects.usage(json("{\"in\":12,\"out\":-3}"), "in", "out"))
        .contains(new Usage(12, 0));
    assertThat(Dialects.usage(json("{\"in\":12}"), "in", "out")).isEmpty();
    assertThat(Dialects.usage(json("{\"in\":\"many\",\"out\":3}"), "in", "out")).isEmpty();
  }

  @Test
  void textsJoinTheTextOfContentBlocksOnly() throws Exception {
    assertThat(Dialects.texts(json("[{\"text\":\"ab\"},{\"image\":\"x\"},{\"text\":\"cd\"}]")))
        .isEqualTo("abcd");
    assertThat(Dialects.texts(json("{\"part\":{\"text\":\"ab\"}}"))).isEmpty();
  }

  /** Reports {"usage": {"in", "out"}} and streams {"text"}; an {"error"} is a 503. */
  private static final class Tally extends JsonStreamTally {
    Tally() {
      super(new ProviderCall("m", 7, 100L, true), CharsPerToken.GENERAL);
    }

    @Override
    protected void onJson(@Nullable String event, JsonNode data) {
      Dialects.usage(data.path("usage"), "in", "out").ifPresent(this::report);
      if (data.path("text").isTextual()) {
        streamed(data.path("text").asText());
      }
    }

    @Override
    protected @Nullable Integer refusal(@Nullable String event, JsonNode data) {
      return data.has("error") ? 503 : null;
    }
  }

  @Test
  void aStreamWithoutUsageIsChargedItsPromptAndTheTextItDelivered() {
    Tally tally = new Tally();
    tally.onEvent(null, "{\"text\":\"abcd\"}");
    tally.onEvent(null, "{\"text\":\"e\"}");
    // 7 prompt tokens estimated; "abcde" is 5 characters, 2 tokens at 4 a token
    assertThat(tally.usage(false)).isEqualTo(new Usage(7, 2));
  }

  @Test
  void theLastReportedUsageWins() {
    Tally tally = new Tally();
    tally.onEvent(null, "{\"text\":\"abcd\",\"usage\":{\"in\":9,\"out\":1}}");
    tally.onEvent(null, "{\"usage\":{\"in\":9,\"out\":30}}");
    assertThat(tally.usage(true)).isEqualTo(new Usage(9, 30));
  }

  @Test
  void dataThatIsNotJsonIsAnErrorForTheStreamButNoRefusal() {
    Tally tally = new Tally();
    assertThatThrownBy(() -> tally.onEvent(null, "not json"))
        .isInstanceOf(UncheckedIOException.class);
    assertThat(tally.refusal(null, "not json")).isNull();
    assertThat(tally.refusal("error", "{\"error\":{}}")).isEqualTo(503);
    assertThat(tally.refusal(null, "{\"text\":\"a\"}")).isNull();
  }
}
