package io.backpressure.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.ManualClock;
import io.backpressure.core.RejectReason;
import io.backpressure.redis.RedisGate;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.TestRedis;
import io.backpressure.redis.TimeSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code admin quota} and {@code admin audit} against a real Redis, with a running gate: what a
 * change does to the gate's next decision, and what the audit trail keeps.
 */
class QuotaCommandTest {
  private static final String TARGET = "openai/gpt-4o";
  private static final String POLICY =
      """
      target: openai/gpt-4o
      dimensions:
        requests: {per_second: 1000, burst: 1000}
        tokens: {per_second: 1000000}
      priorities: {P1: 0.5, P2: 0.5}
      quotas:
        price: {input_per_million: 2, output_per_million: 8}
        tenants:
          acme: {tokens: 1000, per: day}
      """;

  private final String prefix = TestRedis.freshPrefix();
  @TempDir Path dir;

  @Test
  void showSetResetAndAuditAQuotaWhileAGateRuns() throws IOException {
    assertThat(admin("audit", "--target", TARGET).out()).contains("no change audited yet");
    assertThat(admin("apply", "-f", file(POLICY).toString()).code()).isZero();

    // Two seconds before midnight UTC, so the reset instant is one the test can name.
    ManualClock clock =
        new ManualClock(Instant.parse("2026-06-30T23:59:58Z").toEpochMilli() * 1_000_000);
    try (RedisGate gate = gate(clock)) {
      for (int i = 0; i < 4; i++) {
        assertThat(gate.admit("acme", "P1", Cost.requests(1).tokens(200)))
            .isInstanceOf(Admission.Admitted.class);
      }
      // The admin process reads the server's clock; the test's virtual time is on the gate's.
      AdminCommandTest.Run show =
          admin("quota", "show", "--tenant", "acme", "--target", TARGET, "--json");
      assertThat(show.code()).as(show.err()).isZero();
      JsonNode use = show.json();
      assertThat(use.path("field").asText()).isEqualTo("quotas.tenants.acme");
      assertThat(use.path("quota").path("amount").asDouble()).isEqualTo(1000);
      assertThat(use.path("quota").path("unit").asText()).isEqualTo("tokens");
      assertThat(use.path("quota").path("per").asText()).isEqualTo("day");
      assertThat(use.path("reset_at").asText()).endsWith("T00:00:00Z");

      AdminCommandTest.Run set =
          admin(
              "quota",
              "set",
              "--tenant",
              "acme",
              "900",
              "--per",
              "day",
              "--actor",
              "ops@example",
              "--target",
              TARGET,
              "--json");
      assertThat(set.code()).as(set.err()).isZero();
      assertThat(set.json().path("action").asText()).isEqualTo("set");
      assertThat(set.json().path("from").asText()).isEqualTo("1000 tokens per day");
      assertThat(set.json().path("to").asText()).isEqualTo("900 tokens per day");
      assertThat(gate.admit("acme", "P1", Cost.requests(1).tokens(200)))
          .as("800 + 200 > 900 at the gate's next admission")
          .isInstanceOfSatisfying(
              Admission.Rejected.class,
              r -> {
                assertThat(r.reason()).isEqualTo(RejectReason.QUOTA_EXHAUSTED);
                assertThat(r.resetAt()).isEqualTo(Instant.parse("2026-07-01T00:00:00Z"));
              });

      AdminCommandTest.Run klass =
          admin(
              "quota",
              "set",
              "--class",
              "P2",
              "0.5",
              "--per",
              "month",
              "--unit",
              "currency",
              "--actor",
              "ops@example",
              "--target",
              TARGET);
      assertThat(klass.code()).as(klass.err()).isZero();
      assertThat(klass.out())
          .contains("set quotas.classes.P2 none -> 0.5 currency per month (by ops@example");
      // 100 000 input tokens at 2 per million: 0.2 of the class's 0.5, twice; the third is refused.
      assertThat(gate.admit("globex", "P2", Cost.requests(1).tokens(100_000)))
          .isInstanceOf(Admission.Admitted.class);
      assertThat(gate.admit("initech", "P2", Cost.requests(1).tokens(100_000)))
          .isInstanceOf(Admission.Admitted.class);
      assertThat(gate.admit("globex", "P2", Cost.requests(1).tokens(100_000)))
          .isInstanceOfSatisfying(
              Admission.Rejected.class,
              r -> assertThat(r.resetAt()).isEqualTo(Instant.parse("2026-07-01T00:00:00Z")));
    }
  }

  @Test
  void resetEmptiesTheWindowForARunningGate() throws IOException {
    assertThat(admin("apply", "-f", file(POLICY).toString()).code()).isZero();
    try (RedisGate gate = gate(null)) {
      for (int i = 0; i < 5; i++) {
        assertThat(gate.admit("acme", "P1", Cost.requests(1).tokens(200)))
            .isInstanceOf(Admission.Admitted.class);
      }
      assertThat(gate.admit("acme", "P1", Cost.requests(1).tokens(1)))
          .isInstanceOf(Admission.Rejected.class);
      JsonNode before =
          admin("quota", "show", "--tenant", "acme", "--target", TARGET, "--json").json();
      assertThat(before.path("used").asDouble()).isEqualTo(1000);
      assertThat(before.path("remaining").asDouble()).isZero();

      AdminCommandTest.Run reset =
          admin("quota", "reset", "--tenant", "acme", "--actor", "ops@example", "--target", TARGET);
      assertThat(reset.code()).as(reset.err()).isZero();
      assertThat(reset.out()).contains("reset quotas.tenants.acme used 1000 -> used 0");
      assertThat(gate.admit("acme", "P1", Cost.requests(1).tokens(200)))
          .isInstanceOf(Admission.Admitted.class);
      JsonNode after =
          admin("quota", "show", "--tenant", "acme", "--target", TARGET, "--json").json();
      assertThat(after.path("used").asDouble()).isEqualTo(200);
      assertThat(after.path("remaining").asDouble()).isEqualTo(800);
    }
    JsonNode trail = admin("audit", "--target", TARGET, "--json").json().path("entries");
    assertThat(trail).hasSize(2);
    assertThat(trail.get(0).path("field").asText()).as("the apply").isEqualTo("policy");
    assertThat(trail.get(1).path("actor").asText()).isEqualTo("ops@example");
    assertThat(trail.get(1).path("action").asText()).isEqualTo("reset");
    assertThat(trail.get(1).path("field").asText()).isEqualTo("quotas.tenants.acme");
    assertThat(trail.get(1).path("from").asText()).isEqualTo("used 1000");
    assertThat(trail.get(1).path("to").asText()).isEqualTo("used 0");
    assertThat(Instant.parse(trail.get(1).path("at").asText()))
        .isBetween(Instant.now().minusSeconds(60), Instant.now());
  }

  @Test
  void auditListsEveryChangeOldestFirst() throws IOException {
    assertThat(admin("apply", "-f", file(POLICY).toString()).code()).isZero();
    for (int amount = 1; amount <= 3; amount++) {
      assertThat(
              admin(
                      "quota",
                      "set",
                      "--tenant",
                      "t" + amount,
                      Integer.toString(amount * 100),
                      "--per",
                      "day",
                      "--actor",
                      "ci",
                      "--target",
                      TARGET)
                  .code())
          .isZero();
    }
    AdminCommandTest.Run all = admin("audit", "--target", TARGET);
    assertThat(all.out().lines().toList())
        .hasSize(4)
        .satisfiesExactly(
            l -> assertThat(l).contains(" set openai/gpt-4o policy: none -> version "),
            l -> assertThat(l).contains(" ci set openai/gpt-4o quotas.tenants.t1: none -> 100 "),
            l -> assertThat(l).contains("quotas.tenants.t2: none -> 200 tokens per day"),
            l -> assertThat(l).contains("quotas.tenants.t3: none -> 300 tokens per day"));
    JsonNode last = admin("audit", "--target", TARGET, "--last", "1", "--json").json();
    assertThat(last.path("entries")).hasSize(1);
    assertThat(last.path("entries").get(0).path("field").asText()).isEqualTo("quotas.tenants.t3");
  }

  @Test
  void badInputChangesNothingWritesNoAuditAndNamesTheField() throws IOException {
    assertThat(admin("apply", "-f", file(POLICY).toString()).code()).isZero();
    JsonNode before = admin("show", "--target", TARGET, "--json").json().path("policy");
    String[][] cases = {
      {"quotas.tenants.acme", "quota", "set", "--tenant", "acme", "0", "--per", "day"},
      {"quotas.tenants.acme", "quota", "set", "--tenant", "acme", "2e15", "--per", "day"},
      {"priorities", "quota", "set", "--class", "P9", "10", "--per", "day"},
      {"--actor", "quota", "set", "--tenant", "acme", "10", "--per", "day", "--actor", " "},
      {"--tenant", "quota", "set", "--tenant", "", "10", "--per", "day"},
      {"quotas.tenants.nobody", "quota", "reset", "--tenant", "nobody"},
      {"quotas.classes.P1", "quota", "show", "--class", "P1"},
      {"priorities", "quota", "reset", "--class", "P7"},
      {"--last", "audit", "--last", "0"},
    };
    for (String[] c : cases) {
      List<String> args = new ArrayList<>(List.of(c).subList(1, c.length));
      args.addAll(List.of("--target", TARGET, "--json"));
      AdminCommandTest.Run run = admin(args.toArray(String[]::new));
      assertThat(run.code())
          .as(String.join(" ", args) + ": " + run.out())
          .isEqualTo(AdminCommand.INVALID);
      assertThat(run.json().path("error").path("field").asText()).isEqualTo(c[0]);
      assertThat(run.json().path("error").path("message").asText()).isNotBlank();
    }
    // Not a window or a unit at all: usage errors.
    assertThat(
            admin("quota", "set", "--tenant", "acme", "10", "--per", "week", "--target", TARGET)
                .code())
        .isEqualTo(AdminCommand.USAGE);
    assertThat(
            admin(
                    "quota",
                    "set",
                    "--tenant",
                    "acme",
                    "10",
                    "--per",
                    "day",
                    "--unit",
                    "euros",
                    "--target",
                    TARGET)
                .code())
        .isEqualTo(AdminCommand.USAGE);
    assertThat(admin("quota", "set", "--tenant", "acme", "10", "--target", TARGET).code())
        .as("no window")
        .isEqualTo(AdminCommand.USAGE);
    assertThat(admin("show", "--target", TARGET, "--json").json().path("policy")).isEqualTo(before);
    assertThat(admin("audit", "--target", TARGET, "--json").json().path("entries"))
        .as("the apply only")
        .hasSize(1);
    assertThat(admin("quota", "show", "--tenant", "acme", "--target", "nobody/none").code())
        .isEqualTo(AdminCommand.NO_POLICY);
  }

  private RedisGate gate(ManualClock clock) {
    RedisGateConfig.Builder builder =
        RedisGateConfig.builder(TestRedis.shared().url())
            .target(TARGET)
            .keyPrefix(prefix)
            .commandTimeout(Duration.ofSeconds(5));
    if (clock != null) {
      builder.timeSource(TimeSource.caller(clock));
    }
    return RedisGate.connect(builder.build());
  }

  private Path file(String text) throws IOException {
    Path file = Files.createTempFile(dir, "policy", ".yaml");
    Files.writeString(file, text);
    return file;
  }

  private AdminCommandTest.Run admin(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--redis", TestRedis.shared().url(), "--key-prefix", prefix));
    return AdminCommandTest.run(all.toArray(String[]::new));
  }
}
