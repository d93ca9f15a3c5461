package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ModelRoutesTest {

  private static InMemoryGate gate(String target) {
    return InMemoryGate.create(
        Policy.builder(target).requestsPerSecond(10).priority("P1", 1).build());
  }

  @Test
  void exactNamesBeatPrefixesAndLongerPrefixesBeatShorter() {
    InMemoryGate mini = gate("openai/gpt-4o-mini");
    InMemoryGate four = gate("openai/gpt-4o");
    InMemoryGate pinned = gate("openai/gpt-4o-2024-08-06");
    InMemoryGate other = gate("openai/other");
    ModelRoutes routes =
        ModelRoutes.builder()
            .route("gpt-4o*", four)
            .route("gpt-4o-mini*", mini)
            .route("gpt-4o-2024-08-06", pinned)
            .otherwise(other)
            .build();

    assertThat(routes.gateFor("gpt-4o-mini-2024-07-18")).containsSame(mini);
    assertThat(routes.gateFor("gpt-4o")).containsSame(four);
    assertThat(routes.gateFor("gpt-4o-2024-08-06")).containsSame(pinned);
    assertThat(routes.gateFor("gpt-4o-2024-11-20")).containsSame(four);
    assertThat(routes.gateFor("o3-mini")).containsSame(other);
  }

  @Test
  void aModelWithNoRouteAndNoDefaultHasNoGate() {
    ModelRoutes routes = ModelRoutes.builder().route("gpt-4o*", gate("a")).build();
    assertThat(routes.gateFor("claude-sonnet-4-5")).isEmpty();
    assertThat(routes.toString()).isEqualTo("{gpt-4o* -> a, default -> none}");
  }

  @Test
  void readsTheTableFromYamlAndBuildsEachTargetOnce() {
    List<String> built = new ArrayList<>();
    ModelRoutes routes =
        ModelRoutes.fromYaml(
            """
            routes:
              gpt-4o-mini*: openai/mini
              gpt-4.1-mini*: openai/mini
              gpt-4o*: openai/4o
            default: openai/other
            """,
            target -> {
              built.add(target);
              return gate(target);
            });

    assertThat(built).containsExactly("openai/mini", "openai/4o", "openai/other");
    assertThat(routes.gateFor("gpt-4.1-mini").orElseThrow().target()).isEqualTo("openai/mini");
    assertThat(routes.gateFor("gpt-4o").orElseThrow().target()).isEqualTo("openai/4o");
    assertThat(routes.gateFor("gpt-5").orElseThrow().target()).isEqualTo("openai/other");
  }

  @Test
  void refusesBadTablesNamingTheKey() {
    assertThatThrownBy(() -> ModelRoutes.fromYaml("rotues: {}", ModelRoutesTest::gate))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown key 'rotues'; allowed: routes, default");
    Map<String, String> blank = new LinkedHashMap<>();
    blank.put("gpt-4o*", " ");
    assertThatThrownBy(() -> ModelRoutes.fromTable(blank, ModelRoutesTest::gate))
        .hasMessage("routes.gpt-4o* must name a target, got ' '");
    assertThatThrownBy(() -> ModelRoutes.builder().route("*", gate("a")))
        .hasMessageContaining("route pattern must be a model name or a prefix ending in '*'");
    assertThatThrownBy(
            () -> ModelRoutes.builder().route("gpt-4o", gate("a")).route("gpt-4o", gate("b")))
        .hasMessage("route pattern 'gpt-4o' is routed twice");
    assertThatThrownBy(() -> ModelRoutes.builder().build())
        .hasMessage("routes need at least one route or a default gate");
  }
}
