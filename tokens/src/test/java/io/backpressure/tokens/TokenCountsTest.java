package io.backpressure.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.knuddels.jtokkit.api.EncodingType;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Counts checked against what tiktoken gives for the same strings. */
class TokenCountsTest {

  /** The example conversation of OpenAI's guide "How to count tokens with tiktoken". */
  private static final List<ChatMessage> GUIDE_EXAMPLE =
      List.of(
          ChatMessage.of(
              "system",
              "You are a helpful, pattern-following assistant that translates corporate jargon into"
                  + " plain English."),
          new ChatMessage(
              "system", "example_user", "New synergies will help drive top-line growth."),
          new ChatMessage(
              "system", "example_assistant", "Things working well together will increase revenue."),
          new ChatMessage(
              "system",
              "example_user",
              "Let's circle back when we have more bandwidth to touch base on opportunities for"
                  + " increased leverage."),
          new ChatMessage(
              "system",
              "example_assistant",
              "Let's talk later when we're less busy about how to do better."),
          ChatMessage.of(
              "user",
              "This late pivot means we don't have time to boil the ocean for the client"
                  + " deliverable."));

  @Test
  void mapsModelsToTheirEncodings() {
    assertThat(ModelEncodings.forModel("gpt-4o")).hasValue(EncodingType.O200K_BASE);
    assertThat(ModelEncodings.forModel("gpt-4o-mini-2024-07-18")).hasValue(EncodingType.O200K_BASE);
    assertThat(ModelEncodings.forModel("gpt-4.1-nano")).hasValue(EncodingType.O200K_BASE);
    assertThat(ModelEncodings.forModel("o3-mini")).hasValue(EncodingType.O200K_BASE);
    assertThat(ModelEncodings.forModel("ft:gpt-4o-mini:acme::abc123"))
        .hasValue(EncodingType.O200K_BASE);
    assertThat(ModelEncodings.forModel("gpt-4-turbo")).hasValue(EncodingType.CL100K_BASE);
    assertThat(ModelEncodings.forModel("GPT-3.5-Turbo")).hasValue(EncodingType.CL100K_BASE);
    assertThat(ModelEncodings.forModel("text-embedding-3-small"))
        .hasValue(EncodingType.CL100K_BASE);
    assertThat(ModelEncodings.forModel("text-davinci-003")).hasValue(EncodingType.P50K_BASE);
    assertThat(ModelEncodings.forModel("davinci")).hasValue(EncodingType.R50K_BASE);
    assertThat(ModelEncodings.forModel("claude-sonnet-4-5")).isEmpty();
    assertThat(ModelEncodings.forModel("my-azure-deployment")).isEmpty();
    assertThat(ModelEncodings.forModel("")).isEmpty();
    assertThat(ModelEncodings.forModel(null)).isEmpty();
  }

  @Test
  void countsFixedStringsAsTiktokenDoes() {
    TokenCounter cl100k = TokenCounter.of(EncodingType.CL100K_BASE);
    TokenCounter o200k = TokenCounter.of(EncodingType.O200K_BASE);
    // tiktoken: cl100k_base.encode("hello world") == [15339, 1917]
    assertThat(cl100k.count("hello world")).isEqualTo(2);
    // tiktoken: cl100k_base.encode("tiktoken is great!") == [83, 1609, 5963, 374, 2294, 0]
    assertThat(cl100k.count("tiktoken is great!")).isEqualTo(6);
    // tiktoken: o200k_base.encode("tiktoken is great!") == [83, 8251, 2488, 382, 2212, 0]
    assertThat(o200k.count("tiktoken is great!")).isEqualTo(6);
    // tiktoken: o200k_base.encode("hello world") == [24912, 2375]
    assertThat(o200k.count("hello world")).isEqualTo(2);
    assertThat(o200k.count("")).isZero();
    assertThat(o200k.name()).isEqualTo("o200k_base");
    assertThat(o200k.exact()).isTrue();
  }

  @Test
  void countsSpecialTokenMarkersAsPlainText() {
    TokenCounter cl100k = TokenCounter.of(EncodingType.CL100K_BASE);
    assertThat(cl100k.count("<|endoftext|>")).isGreaterThan(1);
  }

  @Test
  void countsChatPromptsAsTheGuideDoes() {
    // The guide's counts, which match usage.prompt_tokens of the API for these models.
    assertThat(ChatTokens.count(TokenCounter.forModel("gpt-4"), GUIDE_EXAMPLE)).isEqualTo(129);
    assertThat(ChatTokens.count(TokenCounter.forModel("gpt-3.5-turbo"), GUIDE_EXAMPLE))
        .isEqualTo(129);
    assertThat(ChatTokens.count(TokenCounter.forModel("gpt-4o"), GUIDE_EXAMPLE)).isEqualTo(124);
    assertThat(ChatTokens.count(TokenCounter.forModel("gpt-4o-mini"), GUIDE_EXAMPLE))
        .isEqualTo(124);
  }

  @Test
  void countsOneShortMessageAsTheWorkedExampleSays() {
    assertThat(
            ChatTokens.count(
                TokenCounter.forModel("gpt-4o"), List.of(ChatMessage.of("user", "hello world"))))
        .isEqualTo(9);
  }

  @Test
  void fallsBackToDocumentedRatios() {
    TokenCounter claude = TokenCounter.forModel("claude-3-5-haiku-latest");
    assertThat(claude).isEqualTo(CharsPerToken.ANTHROPIC);
    assertThat(claude.exact()).isFalse();
    assertThat(claude.count("x".repeat(35))).isEqualTo(10);
    assertThat(claude.count("x".repeat(36))).isEqualTo(11);
    assertThat(TokenCounter.forModel("my-deployment")).isEqualTo(CharsPerToken.GENERAL);
    assertThat(CharsPerToken.GENERAL.count("abcdefgh")).isEqualTo(2);
    assertThat(CharsPerToken.GENERAL.count("\uD83D\uDE00")).isEqualTo(1);
  }

  @Test
  void refusesARatioOutOfRange() {
    assertThatThrownBy(() -> new CharsPerToken(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("charsPerToken must be in (0, 100], got 0.0");
    assertThatThrownBy(() -> new CharsPerToken(Double.NaN))
        .hasMessageContaining("charsPerToken must be in (0, 100]");
  }
}
