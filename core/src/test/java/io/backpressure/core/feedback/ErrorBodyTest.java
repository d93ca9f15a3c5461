package io.backpressure.core.feedback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ErrorBodyTest {

  private static String type(String body) {
    ErrorBody.Json root = ErrorBody.object(body);
    return root == null ? null : ErrorBody.errorType(root);
  }

  @Test
  void readsTheTypeOfAnOpenAiErrorOrATopLevelType() {
    assertThat(
            type(
                "{\"error\": {\"message\": \"Rate limit \\\"reached\\\"\", \"type\": \"tokens\","
                    + " \"param\": null, \"code\": \"rate_limit_exceeded\"}}"))
        .isEqualTo("tokens");
    assertThat(type("{\"type\":\"requests\",\"n\":-1.5e3,\"ok\":[true,false]}"))
        .isEqualTo("requests");
    assertThat(type("{\"error\": {\"type\": 7}, \"type\": \"requests\"}")).isEqualTo("requests");
    assertThat(type("{\"type\": \"\\u0074okens\"}")).isEqualTo("tokens");
  }

  @Test
  void jsonThatNamesNoTypeIsNull() {
    for (String body : List.of("[]", "\"tokens\"", "null", "{}", "{\"error\": \"tokens\"}")) {
      assertThat(type(body)).as(body).isNull();
    }
  }

  @Test
  void whatIsNotOneJsonValueIsRefusedWithoutQuotingIt() {
    String deep = "[".repeat(ErrorBody.MAX_DEPTH + 2) + "]".repeat(ErrorBody.MAX_DEPTH + 2);
    for (String body :
        List.of(
            "",
            "upstream busy",
            "{\"type\": \"tokens\"} trailing",
            "{\"type\": \"tokens\",}",
            "{type: \"tokens\"}",
            "{\"type\": \"tok\\x\"}",
            "{\"type\": \"tokens",
            "{\"n\": 01}",
            "{\"n\": 1.}",
            "[1 2]",
            deep)) {
      assertThatThrownBy(() -> type(body))
          .as(body)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("not JSON: ")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("tokens", "busy"));
    }
    assertThat(type("[".repeat(ErrorBody.MAX_DEPTH) + "]".repeat(ErrorBody.MAX_DEPTH))).isNull();
  }
}
