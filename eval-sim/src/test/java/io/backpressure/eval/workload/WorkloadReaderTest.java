package io.backpressure.eval.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.core.Limits;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class WorkloadReaderTest {
  private static final String MINIMAL =
      """
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
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL.replace("{requests_per_s: 60}", "{requests_per_s: 60, burst: 3}")))
        .hasMessageContaining("unknown key 'upstream.burst'");
    assertThatThrownBy(
            () -> WorkloadReader.parse(MINIMAL.replace("workflows: 2", "workflows: 2, prio: 1")))
        .satisfies(e -> assertThat(((WorkloadException) e).field()).isEqualTo("tenants[0].prio"));
  }

  @Test
  void replicasStandForThatManyTenantsAlikeButForTheirNames() {
    Workload w =
        WorkloadReader.parse(
            MINIMAL.replace(
                "{name: a, priority: P1, workflows: 2}",
                "{name: a, replicas: 3, priority: P1, weight: 2, open_loop_rps: 0.5}"));
    assertThat(w.tenants()).extracting(Workload.Tenant::name).containsExactly("a-0", "a-1", "a-2");
    assertThat(w.tenants()).allSatisfy(t -> assertThat(t.weight()).isEqualTo(2.0));
    assertThat(w.tenants()).allSatisfy(t -> assertThat(t.openLoopRps()).isEqualTo(0.5));
    assertThat(
            WorkloadReader.parse(MINIMAL.replace("workflows: 2", "workflows: 2, replicas: 1"))
                .tenants())
        .extracting(Workload.Tenant::name)
        .containsExactly("a");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(MINIMAL.replace("workflows: 2", "workflows: 2, replicas: 0")))
        .isInstanceOf(WorkloadException.class)
        .satisfies(
            e -> assertThat(((WorkloadException) e).field()).isEqualTo("tenants[0].replicas"));
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL
                        .replace(
                            "tenants:\n", "tenants:\n  - {name: a-1, priority: P2, workflows: 1}\n")
                        .replace("workflows: 2", "workflows: 2, replicas: 2")))
        .hasMessageContaining("'a-1' appears twice");
  }

  @Test
  void outOfRangeValuesNameTheFieldAndTheRange() {
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL.replace("workflows: 2", "workflows: 0")))
        .hasMessageContaining("tenants[0].workflows must be a whole number in [1, 100000], got 0");
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL.replace("slots: 4", "slots: -1")))
        .hasMessageContaining("worker.slots");
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL.replace("priority: P1", "priority: P9")))
        .hasMessageContaining("tenants[0].priority must be one of [P1, P2]");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL.replace(
                        "{requests_per_s: 60}", "{window: tumbling, requests_per_s: 60}")))
        .hasMessageContaining("upstream.window must be one of fixed, sliding, bucket");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL.replace("{requests_per_s: 60}", "{requests_per_s: null}")))
        .hasMessageContaining("at least one of requests_per_s, tokens_per_s");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL.replace("workflows: 2", "workflows: 2, open_loop_rps: 3")))
        .hasMessageContaining("exclusive");
  }

  @Test
  void tokenCountsAreConstantsOrUniformRanges() {
    Workload w =
        WorkloadReader.parse(
            MINIMAL.replace(
                "workflows: 2",
                "workflows: 2, prompt_tokens: 400, completion_tokens: {uniform: [0, 600]}, max_tokens: 200"));
    Workload.Tenant a = w.tenants().get(0);
    assertThat(a.completionTokens()).isEqualTo(new TokenCount.Uniform(0, 600));
    // min(U{0..600}, 200): (0+…+200 + 400·200) / 601 = (20100 + 80000) / 601.
    assertThat(a.completionTokens().meanClampedAt(200L)).isCloseTo(100100.0 / 601, within(1e-9));
    assertThat(a.meanTokensPerCall()).isCloseTo(400 + 100100.0 / 601, within(1e-9));
    assertThat(new TokenCount.Uniform(0, 600).mean()).isEqualTo(300.0);
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL.replace(
                        "workflows: 2", "workflows: 2, prompt_tokens: {uniform: [9, 3]}")))
        .hasMessageContaining("tenants[0].prompt_tokens");
  }

  @Test
  void priorityLongFormCarriesAWaitLimitAndMixesWithTheShortForm() {
    Workload w =
        WorkloadReader.parse(
            MINIMAL.replace("{P1: 0.5, P2: 0.5}", "{P1: {weight: 0.5, max_wait_s: 5}, P2: 0.5}"));
    assertThat(w.priorities().get(0)).isEqualTo(new Workload.PriorityWeight("P1", 0.5, 5.0));
    assertThat(w.priorities().get(1)).isEqualTo(new Workload.PriorityWeight("P2", 0.5, null));
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(MINIMAL.replace("P1: 0.5", "P1: {weight: 0.5, max_wait: 5}")))
        .hasMessageContaining("unknown key 'priorities.P1.max_wait'");
    assertThatThrownBy(
            () -> WorkloadReader.parse(MINIMAL.replace("P1: 0.5", "P1: {max_wait_s: 5}")))
        .hasMessageContaining("priorities.P1.weight is required");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL.replace("P1: 0.5", "P1: {weight: 0.5, max_wait_s: -1}")))
        .hasMessageContaining("priorities.P1.max_wait_s must be a number in (0, 86400]");
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL.replace("P1: 0.5", "P1: [0.5]")))
        .hasMessageContaining("priorities.P1 must be a weight");
  }

  @Test
  void driftDeadlinesAndGateCapsAreRead() {
    Workload w =
        WorkloadReader.parse(
            """
        name: drift
        duration_s: 100
        upstream:
          requests_per_s: 60
          tokens_per_s: 12000
          schedule: [{at_s: 40, tokens_per_s: 6000}, {at_s: 70, requests_per_s: 30}]
          outside: {requests_per_s: 18, tokens_per_s: 0}
          error_rate: 0.01
        priorities: {P1: 1}
        worker: {slots: 4}
        gate: {caps: {requests_per_s: 65}}
        tenants:
          - {name: a, priority: P1, workflows: 2, deadline_s: 10}
        """);
    Workload.Upstream up = w.upstream();
    assertThat(up.capsAt(39.9)).isEqualTo(new Workload.Caps(60.0, 12000.0));
    assertThat(up.capsAt(40)).isEqualTo(new Workload.Caps(60.0, 6000.0));
    assertThat(up.capsAt(99)).isEqualTo(new Workload.Caps(30.0, 6000.0));
    assertThat(up.outsideOf("requests")).isEqualTo(18.0);
    assertThat(up.errorRate()).isEqualTo(0.01);
    assertThat(w.gate().configuredCaps(up)).isEqualTo(new Workload.Caps(65.0, 12000.0));
    assertThat(w.tenants().get(0).deadlineS()).isEqualTo(10.0);
    assertThat(w.scaled(2).upstream().capsAt(99)).isEqualTo(new Workload.Caps(15.0, 3000.0));
  }

  @Test
  void aLatencyScheduleAndTheGatesConcurrencyAreRead_badOnesNameTheField() {
    Workload w =
        WorkloadReader.parse(
            MINIMAL.replace(
                    "{requests_per_s: 60}",
                    "{requests_per_s: 60, latency_ms: [100, 200],"
                        + " latency_schedule: [{at_s: 5, latency_ms: [1000, 2000]},"
                        + " {at_s: 10, latency_ms: [100, 200]}]}")
                + "gate: {concurrency: {adaptive: {min: 2, max: 32, latency_target_s: 0.5}}}\n");
    assertThat(w.upstream().latencyAt(4.9)).containsExactly(100, 200);
    assertThat(w.upstream().latencyAt(5)).containsExactly(1000, 2000);
    assertThat(w.upstream().latencyAt(12)).containsExactly(100, 200);
    assertThat(w.scaled(2).upstream().latencyAt(5))
        .as("scaling keeps latency")
        .containsExactly(1000, 2000);
    assertThat(w.gate().concurrency().adaptive())
        .isEqualTo(new Limits.Adaptive(2, 32, Duration.ofMillis(500)));
    assertThat(
            WorkloadReader.parse(MINIMAL + "gate: {concurrency: {max_in_flight: 8}}\n")
                .gate()
                .concurrency()
                .maxInFlight())
        .isEqualTo(8);
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL.replace(
                        "{requests_per_s: 60}",
                        "{requests_per_s: 60, latency_schedule: [{at_s: 5, latency_ms: [20, 10]}]}")))
        .hasMessageContaining("upstream.latency_schedule[0].latency_ms must be a list [min, max]");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL
                        + "gate: {concurrency: {adaptive: {min: 8, max: 4, latency_target_s: 1}}}\n"))
        .hasMessageContaining(
            "gate.concurrency.adaptive.max must be a whole number in [adaptive.min");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL + "gate: {concurrency: {adaptive: {min: 1, max: 4}}}\n"))
        .hasMessageContaining("gate.concurrency.adaptive.latency_target_s is required");
    assertThatThrownBy(
            () -> WorkloadReader.parse(MINIMAL + "gate: {concurrency: {max_in_flight: 0}}\n"))
        .hasMessageContaining("gate.concurrency.max_in_flight must be a whole number in [1,");
  }

  @Test
  void driftFieldsAreCheckedAgainstTheUpstreamsCaps() {
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL.replace(
                        "{requests_per_s: 60}",
                        "{requests_per_s: 60, schedule: [{at_s: 5, tokens_per_s: 100}]}")))
        .hasMessageContaining(
            "upstream.schedule[0].tokens_per_s is given, but upstream.tokens_per_s is null");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL.replace(
                        "{requests_per_s: 60}",
                        "{requests_per_s: 60, schedule: [{at_s: 5, requests_per_s: 10}, {at_s: 5, requests_per_s: 20}]}")))
        .hasMessageContaining("upstream.schedule[1].at_s must be a number in (5, 20]");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL.replace("{requests_per_s: 60}", "{requests_per_s: 60, error_rate: 1}")))
        .hasMessageContaining("upstream.error_rate must be a number in [0, 0.99]");
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL + "gate: {caps: {tokens_per_s: 5}}\n"))
        .hasMessageContaining("gate.caps.tokens_per_s is given, but upstream.tokens_per_s is null");
  }

  @Test
  void duplicateKeysExtraDocumentsAndCoercionsAreRefused() {
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL.replace(
                        "{requests_per_s: 60}", "{requests_per_s: 60, requests_per_s: 6000}")))
        .hasMessageContaining("Duplicate field 'requests_per_s'");
    assertThatThrownBy(
            () -> WorkloadReader.parse(MINIMAL.replace("{P1: 0.5, P2: 0.5}", "{P1: 0.5, P1: 5}")))
        .hasMessageContaining("Duplicate field 'P1'");
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL + "---\nname: second\n"))
        .hasMessageContaining("one YAML document");
    assertThatThrownBy(
            () -> WorkloadReader.parse(MINIMAL.replace("workflows: 2", "workflows: 2.0")))
        .hasMessageContaining("tenants[0].workflows must be a whole number");
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL.replace("slots: 4", "slots: '4'")))
        .hasMessageContaining("worker.slots must be a whole number");
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL + "gate: {reservation: 'yes please'}\n"))
        .hasMessageContaining("gate.reservation must be true or false");
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL + "gate: {default_max_tokens: 1.9}\n"))
        .hasMessageContaining("gate.default_max_tokens must be a whole number");
    assertThatThrownBy(
            () -> WorkloadReader.parse(MINIMAL.replace("{P1: 0.5, P2: 0.5}", "[P1, P2]")))
        .hasMessageContaining("priorities must be a mapping");
  }

  @Test
  void workloadsThatCouldNeverBeServedAreRefused() {
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL
                        .replace("{requests_per_s: 60}", "{requests_per_s: 60, tokens_per_s: 1000}")
                        .replace("workflows: 2", "workflows: 2, prompt_tokens: 1200")))
        .satisfies(
            e -> assertThat(((WorkloadException) e).field()).isEqualTo("tenants[0].prompt_tokens"))
        .hasMessageContaining("could never be served");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL
                        .replace(
                            "{requests_per_s: 60}",
                            "{requests_per_s: 60, tokens_per_s: 1000, outside: {requests_per_s: 1, tokens_per_s: 600}}")
                        .replace(
                            "workflows: 2",
                            "workflows: 2, prompt_tokens: 300, completion_tokens: 200")))
        .hasMessageContaining("could never be served");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL.replace("{requests_per_s: 60}", "{requests_per_s: 0.5}")))
        .hasMessageContaining("at least one request per period");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(MINIMAL.replace("workflows: 2", "workflows: 2, start_s: 20")))
        .hasMessageContaining("tenants[0].start_s must be in [0, duration_s)");
    // A completion clamped by max_tokens fits, and a cap that grows later makes a call servable.
    WorkloadReader.parse(
        MINIMAL
            .replace("{requests_per_s: 60}", "{requests_per_s: 60, tokens_per_s: 1000}")
            .replace(
                "workflows: 2",
                "workflows: 2, prompt_tokens: 500, completion_tokens: 5000, max_tokens: 500"));
    WorkloadReader.parse(
        MINIMAL
            .replace(
                "{requests_per_s: 60}",
                "{requests_per_s: 60, tokens_per_s: 1000, schedule: [{at_s: 10, tokens_per_s: 2000}]}")
            .replace("workflows: 2", "workflows: 2, prompt_tokens: 1500"));
  }

  @Test
  void unknownNamesListTheShippedWorkloads() {
    assertThatThrownBy(() -> Workloads.load("no-such-workload"))
        .hasMessageContaining("cross-priority")
        .hasMessageContaining("all");
  }
}
