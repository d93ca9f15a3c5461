package io.backpressure.eval.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.core.Limits;
import java.time.Duration;
import java.time.Instant;
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

  private static final String METERED =
      MINIMAL.replace("{requests_per_s: 60}", "{requests_per_s: 60, tokens_per_s: 6000}");

  @Test
  void calendarWindowsQuotasAndTheStartInstantAreRead() {
    Workload w =
        WorkloadReader.parse(
            METERED.replace(
                    "tokens_per_s: 6000}",
                    "tokens_per_s: 6000,"
                        + " per_day: {tokens: 900000, time_zone: America/Los_Angeles}}")
                + "start_at: 2026-03-07T23:59:30-08:00\n"
                + "gate:\n"
                + "  time_zone: America/Los_Angeles\n"
                + "  per_day: {requests: 5000, tokens: 800000}\n"
                + "  per_month: {tokens: 20000000}\n"
                + "  quotas:\n"
                + "    price: {input_per_million: 2.5, output_per_million: 10}\n"
                + "    tenants: {a: {currency: 1.5, per: day}}\n"
                + "    default_tenant: {tokens: 100000, per: month}\n"
                + "    classes: {P2: {tokens: 300000, per: day}}\n");
    assertThat(w.startAt()).isEqualTo(Instant.parse("2026-03-08T07:59:30Z"));
    assertThat(w.upstream().perDay())
        .isEqualTo(
            new Workload.DayCaps(null, 900_000.0, java.time.ZoneId.of("America/Los_Angeles")));
    Limits limits = w.gate().limits();
    assertThat(limits.timeZone()).isEqualTo(java.time.ZoneId.of("America/Los_Angeles"));
    assertThat(limits.calendar())
        .containsExactly(
            new Limits.Calendar("requests", Limits.Period.DAY, 5000),
            new Limits.Calendar("tokens", Limits.Period.DAY, 800_000),
            new Limits.Calendar("tokens", Limits.Period.MONTH, 20_000_000));
    assertThat(limits.price()).isEqualTo(new Limits.Price(2.5, 10));
    assertThat(limits.tenantQuotas()).containsEntry("a", Limits.Quota.currencyPerDay(1.5));
    assertThat(limits.defaultTenantQuota()).isEqualTo(Limits.Quota.tokensPerMonth(100_000));
    assertThat(limits.classQuotas()).containsEntry("P2", Limits.Quota.tokensPerDay(300_000));
    assertThat(w.followsCalendar()).isTrue();
    assertThat(WorkloadReader.parse(MINIMAL).followsCalendar()).isFalse();
    assertThat(WorkloadReader.parse(MINIMAL).startAt()).isEqualTo(Workload.DEFAULT_START);
    // scaling divides what a day or a quota holds as it divides the rates
    Workload half = w.scaled(2);
    assertThat(half.upstream().perDay().tokens()).isEqualTo(450_000.0);
    assertThat(half.gate().limits().calendar().get(1).limit()).isEqualTo(400_000.0);
    assertThat(half.gate().limits().tenantQuotas().get("a").amount()).isEqualTo(0.75);
    assertThatThrownBy(() -> w.stretched(2))
        .hasMessageContaining("--time-scale cannot stretch workload w");
  }

  @Test
  void badCalendarWindowsAndQuotasNameTheField() {
    assertThatThrownBy(() -> WorkloadReader.parse(METERED + "start_at: 2026-03-07T23:59:30\n"))
        .hasMessageContaining("start_at must be a date and time with its offset");
    assertThatThrownBy(() -> WorkloadReader.parse(METERED + "gate: {time_zone: Mars/Olympus}\n"))
        .satisfies(e -> assertThat(((WorkloadException) e).field()).isEqualTo("gate.time_zone"))
        .hasMessageContaining("gate.time_zone must be a region ID of the tz database");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    METERED.replace(
                        "tokens_per_s: 6000}",
                        "tokens_per_s: 6000, per_day: {tokens: 10, time_zone: Nowhere}}")))
        .hasMessageContaining("upstream.per_day.time_zone must be a region ID");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    METERED.replace("tokens_per_s: 6000}", "tokens_per_s: 6000, per_day: {}}")))
        .hasMessageContaining("upstream.per_day must cap at least one of requests, tokens");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    METERED.replace(
                        "tokens_per_s: 6000}", "tokens_per_s: 6000, per_day: {tokens: 0}}")))
        .hasMessageContaining("upstream.per_day.tokens must be a whole number in [1,");
    assertThatThrownBy(() -> WorkloadReader.parse(METERED + "gate: {per_day: {tokens: 0}}\n"))
        .hasMessageContaining("gate.per_day.tokens must be a number in (0, 1000000000000000]");
    assertThatThrownBy(() -> WorkloadReader.parse(MINIMAL + "gate: {per_day: {tokens: 10}}\n"))
        .hasMessageContaining(
            "gate.per_day.tokens is given, but the gate meters no tokens: upstream.tokens_per_s"
                + " is null");
    assertThatThrownBy(() -> WorkloadReader.parse(METERED + "gate: {per_month: {calls: 10}}\n"))
        .hasMessageContaining("unknown key 'gate.per_month.calls'");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    MINIMAL + "gate: {quotas: {tenants: {a: {tokens: 5, per: day}}}}\n"))
        .hasMessageContaining("gate.quotas count tokens, and the gate meters none");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    METERED + "gate: {quotas: {tenants: {a: {currency: 5, per: day}}}}\n"))
        .hasMessageContaining("gate.quotas.tenants.a.currency needs gate.quotas.price");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    METERED
                        + "gate: {quotas: {price: {input_per_million: -1, output_per_million: 1}}}\n"))
        .hasMessageContaining(
            "gate.quotas.price.input_per_million must be a number in [0, 1000000]");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    METERED
                        + "gate: {quotas: {tenants: {a: {tokens: 5, currency: 1, per: day}}}}\n"))
        .hasMessageContaining("gate.quotas.tenants.a must give exactly one of tokens and currency");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    METERED + "gate: {quotas: {tenants: {a: {tokens: 5, per: week}}}}\n"))
        .hasMessageContaining("gate.quotas.tenants.a.per must be one of day, month, got 'week'");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    METERED + "gate: {quotas: {tenants: {zed: {tokens: 5, per: day}}}}\n"))
        .hasMessageContaining(
            "gate.quotas.tenants.zed is a quota of a tenant the workload does not have");
    assertThatThrownBy(
            () ->
                WorkloadReader.parse(
                    METERED + "gate: {quotas: {classes: {P9: {tokens: 5, per: day}}}}\n"))
        .satisfies(
            e -> assertThat(((WorkloadException) e).field()).isEqualTo("gate.quotas.classes.P9"))
        .hasMessageContaining("is a quota on a class the workload does not have");
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
