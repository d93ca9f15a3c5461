package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MockProviderConfigTest {

  @Test
  void fieldsAreRangeCheckedByName() {
    assertThatThrownBy(() -> MockProviderConfig.builder().port(-1).build())
        .hasMessage("port must be in the range [0, 65535], but was: -1");
    assertThatThrownBy(() -> MockProviderConfig.builder().latencyMs(100, 50).build())
        .hasMessage("latencyMaxMs must be in the range [100, 600000], but was: 50");
    assertThatThrownBy(() -> MockProviderConfig.builder().latencyMs(-1, 50).build())
        .hasMessageContaining("latencyMinMs");
    assertThatThrownBy(() -> MockProviderConfig.builder().maxBodyBytes(10).build())
        .hasMessageContaining("maxBodyBytes must be in the range [1024, 67108864]");
    assertThatThrownBy(() -> MockProviderConfig.builder().maxRecords(0).build())
        .hasMessageContaining("maxRecords");
    assertThatThrownBy(() -> MockProviderConfig.builder().maxHeaderBytes(100).build())
        .hasMessage("maxHeaderBytes must be in the range [1024, 1048576], but was: 100");
    assertThatThrownBy(() -> MockProviderConfig.builder().idleTimeoutMs(50).build())
        .hasMessage("idleTimeoutMs must be in the range [100, 3600000], but was: 50");
    assertThatThrownBy(() -> MockProviderConfig.builder().maxRecordBytes(1000).build())
        .hasMessage("maxRecordBytes must be in the range [1048576, 17179869184], but was: 1000");
    assertThatThrownBy(() -> MockProviderConfig.builder().errorRate(Double.NaN).build())
        .hasMessage("errorRate must be in the range [0, 1], but was: NaN");
    assertThatThrownBy(
            () ->
                MockProviderConfig.builder()
                    .requests(LimitSpec.perSecond(WindowModel.FIXED, 0.5))
                    .build())
        .hasMessageStartingWith("requests must allow at least 1 request per period");
    assertThatThrownBy(() -> MockProviderConfig.builder().host(" ").build())
        .hasMessage("host must not be blank");
    MockProviderConfig config = MockProviderConfig.builder().seed(9).build();
    assertThat(config.toBuilder().build()).isEqualTo(config);
  }

  @Test
  void completionTokenDistributionsParseAndStayInRange() {
    assertThat(CompletionTokens.parse(" 50 ")).isEqualTo(new CompletionTokens.Fixed(50));
    assertThat(CompletionTokens.parse("20..200")).isEqualTo(new CompletionTokens.Uniform(20, 200));
    assertThat(CompletionTokens.parse("7..7").draw(new SplittableRandom(1))).isEqualTo(7);
    SplittableRandom random = new SplittableRandom(3);
    CompletionTokens uniform = new CompletionTokens.Uniform(1, 3);
    int[] seen = new int[4];
    for (int i = 0; i < 300; i++) {
      seen[uniform.draw(random)]++;
    }
    assertThat(seen[0]).isZero();
    assertThat(seen[1]).isPositive();
    assertThat(seen[2]).isPositive();
    assertThat(seen[3]).isPositive();
    assertThatThrownBy(() -> CompletionTokens.parse("9..3"))
        .hasMessageContaining("must not exceed the maximum");
    assertThatThrownBy(() -> CompletionTokens.parse("lots"))
        .hasMessageContaining("completion tokens must be N or A..B");
    assertThatThrownBy(() -> new CompletionTokens.Fixed(2_000_000))
        .hasMessageContaining("[0, 1000000]");
  }

  @Test
  void chargeModesParse() {
    assertThat(ChargeMode.parse("max_tokens")).isEqualTo(ChargeMode.MAX_TOKENS);
    assertThat(ChargeMode.parse("ACTUAL")).isEqualTo(ChargeMode.ACTUAL);
    assertThatThrownBy(() -> ChargeMode.parse("all"))
        .hasMessage("charge must be one of actual, max-tokens, but was: all");
  }
}
