package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class CostTest {

  @Test
  void theStandardDimensionsReadBack_andAnUnnamedOneIsZero() {
    Cost cost = Cost.requests(1).tokens(420);
    assertThat(cost.requests()).isEqualTo(1);
    assertThat(cost.tokens()).isEqualTo(420);
    assertThat(cost.amount(Dimension.TOKENS)).isEqualTo(420);
    assertThat(cost.amount("images")).isZero();
    assertThat(cost.names(Dimension.REQUESTS)).isTrue();
    assertThat(cost.names("images")).isFalse();
    assertThat(cost.dimensions()).containsExactly(Dimension.REQUESTS, Dimension.TOKENS);
    assertThat(cost.size()).isEqualTo(2);
    assertThat(cost).hasToString("Cost[requests=1.0, tokens=420.0]");
  }

  @Test
  void otherDimensionsAreNamed_andWithReplacesAnAmount() {
    Cost cost = Cost.of("images", 2).with("seconds", 1.5).with("images", 3);
    assertThat(cost.amount("images")).isEqualTo(3);
    assertThat(cost.amount("seconds")).isEqualTo(1.5);
    assertThat(cost.requests()).isZero();
    assertThat(cost.dimensions()).containsExactly("images", "seconds");
    assertThat(Cost.none().tokens(5).dimensions()).containsExactly(Dimension.TOKENS);
    assertThat(Cost.of(Dimension.REQUESTS, 2)).isEqualTo(Cost.requests(2));
  }

  @Test
  void aNamedZeroIsNotTheSameAsAnUnnamedDimension() {
    assertThat(Cost.requests(1).tokens(0)).isNotEqualTo(Cost.requests(1));
    assertThat(Cost.requests(1).tokens(0).names(Dimension.TOKENS)).isTrue();
    assertThat(Cost.none().size()).isZero();
  }

  @Test
  void equalityIgnoresTheOrderTheDimensionsWereNamedIn() {
    Cost a = Cost.requests(1).with("input_tokens", 10).with("output_tokens", 20);
    Cost b = Cost.of("output_tokens", 20).with("input_tokens", 10).with(Dimension.REQUESTS, 1);
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a).isNotEqualTo(b.with("output_tokens", 21));
  }

  @Test
  void aPolicysAmountsComeBackAsACost() {
    assertThat(Cost.of(List.of("requests", "tokens", "images"), new double[] {1, 400, 2}))
        .isEqualTo(Cost.requests(1).tokens(400).with("images", 2));
    assertThatThrownBy(() -> Cost.of(List.of("requests"), new double[] {1, 2}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 dimensions but 2 amounts");
  }

  @Test
  void badAmountsAreRefusedWithTheDimensionAndTheRangeNamed() {
    assertRefused(
        () -> Cost.requests(-1),
        "cost.requests must be a finite number in [0, 1000000000000000], got -1.0");
    assertRefused(
        () -> Cost.requests(1).tokens(Double.NaN),
        "cost.tokens must be a finite number in [0, 1000000000000000], got NaN");
    assertRefused(() -> Cost.requests(Double.POSITIVE_INFINITY), "cost.requests");
    assertRefused(() -> Cost.of("images", 2e15), "cost.images");
    assertRefused(() -> Cost.requests(1).with("seconds", -0.5), "cost.seconds");
    assertRefused(() -> Cost.of(" ", 1), "non-empty name");
  }

  @Test
  void aRefusedAmountLeavesTheCostItWasAddedToAsItWas() {
    Cost cost = Cost.requests(1).tokens(10);
    assertThatThrownBy(() -> cost.tokens(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThat(cost).isEqualTo(Cost.requests(1).tokens(10));
  }

  private static void assertRefused(Runnable build, String message) {
    assertThatThrownBy(build::run)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }
}
