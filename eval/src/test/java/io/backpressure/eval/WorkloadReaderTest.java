package io.backpressure.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class WorkloadReaderTest {
  private static final String MINIMAL = """
      name: w
      duration_s: 20
      upstream: {requests_per_s: 60}
      priorities: {P1: 0.5, P2: 0.5}
      worker: {slots: 4}
      tenants:
        - {name: a, priority: P1, workflows: 2}
      """;

  @Test
  void everyShippedWorkloadParsesWithItsNameAndADescription() {
    assertThat(Workloads.SHIPPED).hasSize(9);
    for (String name : Workloads.SHIPPED) {
      Workload w = Workloads.load(name);
      assertThat(w.name()).isEqualTo(name);
      assertThat(w.description()).contains("Chosen");
      assertThat(w.upstream().requestsPerS()).isEqualTo(60.0);
      assertThat(w.upstream().window()).isEqualTo("fixed");
    }
    assertThat(Workloads.load("token-bound").upstream().tokensPerS()).isEqualTo(12000.0);
    assertThat(Workloads.load("reservation").gate().reservation()).isTrue();
    assertThat(Workloads.load("reservation-capped").tenants().get(0).maxTokens()).isEqualTo(200L);
    assertThat(Workloads.load("uncongested").tenants().get(0).openLoopRps()).isEqualTo(15.0);
  }

  @Test
  void defaultsFollowTheSchema() {
    Workload w = WorkloadReader.parse(MINIMAL);
    assertThat(w.warmupS()).isZero();
    assertThat(w.upstream().periodS()).isEqualTo(1.0);
    assertThat(w.upstream().tokensPerS()).isNull();
    assertThat(w.upstream().latencyMinMs()).isEqualTo(50.0);
    assertThat(w.upstream().latencyMaxMs()).isEqualTo(150.0);
    assertThat(w.gate().defaultMaxTokens()).isEqualTo(1024);
    Workload.Tenant a = w.tenants().get(0);
    assertThat(a.weight()).isEqualTo(1.0);
    assertThat(a.callsPerWorkflow()).isEqualTo(WorkloadReader.UNBOUNDED_CALLS);
    assertThat(a.promptTokens()).isEqualTo(new TokenCount.Fixed(0));
  }

  @Test
  void unknownKeysAreErrorsThatNameThem() {
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL + "colour: blue\n"))
        .isInstanceOf(WorkloadException.class)
        .hasMessageContaining("unknown key 'colour'")
        .hasMessageContaining("allowed here");
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL.replace("{requests_per_s: 60}",
        "{requests_per_s: 60, burst: 3}")))
        .hasMessageContaining("unknown key 'upstream.burst'");
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL.replace("workflows: 2", "workflows: 2, prio: 1")))
        .satisfies(e -> assertThat(((WorkloadException) e).field()).isEqualTo("tenants[0].prio"));
  }

  @Test
  void outOfRangeValuesNameTheFieldAndTheRange() {
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL.replace("workflows: 2", "workflows: 0")))
        .hasMessageContaining("tenants[0].workflows must be a whole number in [1, 100000], got 0");
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL.replace("slots: 4", "slots: -1")))
        .hasMessageContaining("worker.slots");
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL.replace("priority: P1", "priority: P9")))
        .hasMessageContaining("tenants[0].priority must be one of [P1, P2]");
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL.replace("{requests_per_s: 60}", "{window: tumbling, requests_per_s: 60}")))
        .hasMessageContaining("upstream.window must be one of fixed, sliding, bucket");
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL.replace("{requests_per_s: 60}", "{requests_per_s: null}")))
        .hasMessageContaining("at least one of requests_per_s, tokens_per_s");
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL.replace("workflows: 2", "workflows: 2, open_loop_rps: 3")))
        .hasMessageContaining("exclusive");
  }

  @Test
  void tokenCountsAreConstantsOrUniformRanges() {
    Workload w = WorkloadReader.parse(MINIMAL.replace("workflows: 2",
        "workflows: 2, prompt_tokens: 400, completion_tokens: {uniform: [0, 600]}, max_tokens: 200"));
    Workload.Tenant a = w.tenants().get(0);
    assertThat(a.completionTokens()).isEqualTo(new TokenCount.Uniform(0, 600));
    // min(U{0..600}, 200): (0+…+200 + 400·200) / 601 = (20100 + 80000) / 601.
    assertThat(a.completionTokens().meanClampedAt(200L)).isCloseTo(100100.0 / 601, within(1e-9));
    assertThat(a.meanTokensPerCall()).isCloseTo(400 + 100100.0 / 601, within(1e-9));
    assertThat(new TokenCount.Uniform(0, 600).mean()).isEqualTo(300.0);
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL.replace("workflows: 2",
        "workflows: 2, prompt_tokens: {uniform: [9, 3]}")))
        .hasMessageContaining("tenants[0].prompt_tokens");
  }

  @Test
  void unknownNamesListTheShippedWorkloads() {
    assertThatThrownBy(() -> Workloads.load("no-such-workload"))
        .hasMessageContaining("cross-priority").hasMessageContaining("all");
  }
}
