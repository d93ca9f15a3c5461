package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.Cost;
import org.junit.jupiter.api.Test;

class CostModelTest {

  private static final ProviderCall CALL = new ProviderCall("claude-haiku-4-5", 120, 400L, false);

  @Test
  void chargesRequestsAndTotalTokens() {
    CostModel model = CostModel.REQUESTS_AND_TOKENS;
    assertThat(model.estimate(CALL)).isEqualTo(Cost.requests(1).tokens(120));
    assertThat(model.actual(new Usage(118, 37))).isEqualTo(Cost.requests(1).tokens(155));
    assertThat(model.failed()).isEqualTo(Cost.requests(1).tokens(0));
  }

  @Test
  void chargesInputAndOutputSeparatelyReservingTheCompletionLimit() {
    CostModel model = CostModel.SEPARATE_INPUT_OUTPUT;
    assertThat(model.estimate(CALL))
        .isEqualTo(Cost.requests(1).with("input_tokens", 120).with("output_tokens", 400));
    assertThat(model.actual(new Usage(118, 37)))
        .isEqualTo(Cost.requests(1).with("input_tokens", 118).with("output_tokens", 37));
    assertThat(model.estimate(new ProviderCall("m", 5, null, false)).amount("output_tokens"))
        .isZero();
  }

  @Test
  void refusesUnknownDimensions() {
    assertThatThrownBy(() -> CostModel.of("requests", "tokenz"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "dimensions: 'tokenz' is not a dimension a gated client can charge; allowed: ");
    assertThatThrownBy(CostModel::of)
        .hasMessageStartingWith("dimensions must name at least one of");
  }
}
