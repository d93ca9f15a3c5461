package io.backpressure.tokens;

import java.util.List;

/** The example of this module's README, compiled and run by {@code ReadmeExampleTest}. */
final class ReadmeExample {

  private ReadmeExample() {}

  /** The three counts of the example: text, chat prompt, Claude estimate. */
  static int[] counts() {
    // example:start
    TokenCounter counter = TokenCounter.forModel("gpt-4o-mini"); // o200k_base
    int text = counter.count("hello world"); // 2, as tiktoken counts
    int prompt =
        ChatTokens.count(
            counter,
            List.of( // with the chat framing
                ChatMessage.of("system", "You are terse."), ChatMessage.of("user", "hello world")));
    int claude =
        TokenCounter.forModel("claude-haiku-4-5") // no public tokenizer:
            .count("hello world"); // ⌈11 chars / 3.5⌉ = 4
    // example:end
    return new int[] {text, prompt, claude};
  }
}
