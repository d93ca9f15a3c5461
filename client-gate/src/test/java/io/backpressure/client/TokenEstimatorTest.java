package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.tokens.TokenCounter;
import java.util.List;
import org.junit.jupiter.api.Test;

class TokenEstimatorTest {

  @Test
  void countsFourCharactersPerTokenOfEachMessageRoundingUp() {
    assertThat(TokenEstimator.charsPerToken().estimate(List.of("abcd", "efghi"))).isEqualTo(3);
    assertThat(TokenEstimator.charsPerToken().estimate(List.of("a", "b", "c"))).isEqualTo(3);
    assertThat(TokenEstimator.charsPerToken().estimate(List.of())).isZero();
    assertThat(TokenEstimator.charsPerToken(2).estimate(List.of("abcde"))).isEqualTo(3);
  }

  @Test
  void aTokenizerCountsEachMessage() {
    assertThat(TokenEstimator.of(TokenCounter.forModel("gpt-4o")).estimate(List.of("hello world")))
        .isEqualTo(2);
  }

  @Test
  void aRatioOutOfRangeIsRefusedNamingTheRange() {
    assertThatThrownBy(() -> TokenEstimator.charsPerToken(0))
        .hasMessage("charsPerToken must be in (0, 100], got 0.0");
    assertThatThrownBy(() -> TokenEstimator.charsPerToken(Double.NaN))
        .hasMessageContaining("(0, 100]");
  }
}
