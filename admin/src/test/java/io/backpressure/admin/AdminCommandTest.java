package io.backpressure.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.ManualClock;
import io.backpressure.redis.RedisGate;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.TestRedis;
import io.backpressure.redis.TimeSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class AdminCommandTest {
  private static final String TARGET = "openai/gpt-4o";
  private static final String POLICY =
      """
      target: openai/gpt-4o
      dimensions:
        requests: {per_second: 1000, burst: 1000}
        tokens: {per_minute: 720000}
      priorities: {P1: 0.5, P2: 0.3, P3: 0.2}
      tenants: {default_weight: 1.0, weights: {acme: 2.0}}
      """;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String prefix = TestRedis.freshPrefix();
  @TempDir Path dir;

  record Run(int code, String out, String err) {
    JsonNode json() throws IOException {
      return JSON.readTree(out);
    }
  }

  @Test
  void applyThenShowReturnsThePolicyAndItsLevels() throws IOException {
    Run apply = admin("apply", "-f", file(POLICY).toString(), "--json");
    assertThat(apply.code()).as(apply.err()).isZero();
    assertThat(apply.json().path("written").asBoolean()).isTrue();
    String version = apply.json().path("version").asText();

    Run show = admin("show", "--target", TARGET, "--json");
    assertThat(show.code()).as(show.err()).isZero();
    JsonNode json = show.json();
    assertThat(json.path("version").asText()).isEqualTo(version);
    assertThat(json.path("policy").path("dimensions").path("tokens").path("per_second").asDouble())
        .isEqualTo(12_000);
    assertThat(json.path("policy").path("priorities").path("P1").asDouble()).isEqualTo(0.5);
    assertThat(json.path("policy").path("tenants").path("weights").path("acme").asDouble())
        .isEqualTo(2.0);
    assertThat(json.path("levels").isNull()).as("no admission yet").isTrue();

    try (RedisGate gate = gate(new ManualClock())) {
      assertThat(gate.admit("acme", "P1", Cost.requests(1).tokens(600)))
          .isInstanceOf(Admission.Admitted.class);
    }
    JsonNode levels = admin("show", "--target", TARGET, "--json").json().path("levels");
    assertThat(levels.path("global").path("requests").asDouble()).isEqualTo(999);
    assertThat(levels.path("global").path("tokens").asDouble()).isEqualTo(11_400);
    assertThat(levels.path("utilization").path("tokens").asDouble())
        .isCloseTo(0.05, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(levels.path("active_queues").path("P1").asInt()).isEqualTo(1);
    assertThat(levels.path("queue_age_seconds").path("P1").isNumber())
        .as("no call waiting: age 0")
        .isTrue();
    assertThat(levels.path("queue_age_seconds").path("P1").asDouble()).isEqualTo(0);
    // One 600-token call, averaged over the one-second share horizon.
    assertThat(levels.path("admitted_per_second").path("P1").path("tokens").asDouble())
        .isEqualTo(600);

    Run text = admin("show", "--target", TARGET);
    assertThat(text.code()).isZero();
    assertThat(text.out())
        .contains(
            "target openai/gpt-4o",
            "tokens",
            "12000",
            "720000",
            "P1",
            "acme 2",
            "tokens/s",
            "oldest wait");
  }

  @Test
  void setCapChangesTheDecisionsOfARunningGateAtItsNextAdmission() throws IOException {
    assertThat(admin("apply", "-f", file(POLICY).toString()).code()).isZero();
    ManualClock clock = new ManualClock();
    try (RedisGate gate = gate(clock)) {
      for (int i = 0; i < 3; i++) {
        clock.advance(Duration.ofMillis(50));
        assertThat(gate.admit("acme", "P1", Cost.requests(1).tokens(10)))
            .isInstanceOf(Admission.Admitted.class);
      }
      Run set =
          admin(
              "set",
              "cap",
              "requests",
              "--per-second",
              "1",
              "--burst",
              "1",
              "--target",
              TARGET,
              "--json");
      assertThat(set.code()).as(set.err()).isZero();
      assertThat(set.json().path("changed").asText()).isEqualTo("dimensions.requests");
      assertThat(set.json().path("from").path("per_second").asDouble()).isEqualTo(1000);
      assertThat(set.json().path("to").path("burst").asDouble()).isEqualTo(1);

      // At the same pace as before: the new burst holds one request, and the next needs a second.
      clock.advance(Duration.ofMillis(50));
      assertThat(gate.admit("acme", "P1", Cost.requests(1).tokens(10)))
          .isInstanceOf(Admission.Admitted.class);
      clock.advance(Duration.ofMillis(50));
      Admission next = gate.admit("acme", "P1", Cost.requests(1).tokens(10));
      assertThat(next).isInstanceOf(Admission.Deferred.class);
      assertThat(((Admission.Deferred) next).retryAfter())
          .isBetween(Duration.ofMillis(900), Duration.ofMillis(1000));
      assertThat(gate.admit("acme", "P1", Cost.requests(2).tokens(10)))
          .as("a cost above the new burst never fits")
          .isInstanceOfSatisfying(
              Admission.Rejected.class, r -> assertThat(r.message()).contains("burst"));
    }
  }

  @Test
  void setWeightChangesClassAndTenantWeights() throws IOException {
    assertThat(admin("apply", "-f", file(POLICY).toString()).code()).isZero();
    Run klass = admin("set", "weight", "--class", "P3", "0.4", "--target", TARGET);
    assertThat(klass.code()).as(klass.err()).isZero();
    assertThat(klass.out()).contains("priorities.P3 weight 0.2 -> 0.4");
    Run tenant = admin("set", "weight", "--tenant", "globex", "3", "--target", TARGET, "--json");
    assertThat(tenant.code()).isZero();
    assertThat(tenant.json().path("from").asDouble()).isEqualTo(1.0);
    JsonNode policy = admin("show", "--target", TARGET, "--json").json().path("policy");
    assertThat(policy.path("priorities").path("P3").asDouble()).isEqualTo(0.4);
    assertThat(policy.path("tenants").path("weights").path("globex").asDouble()).isEqualTo(3.0);
    assertThat(policy.path("tenants").path("weights").path("acme").asDouble()).isEqualTo(2.0);
  }

  @Test
  void everyChangeIsAudited_aRefusedOneIsNot() throws IOException {
    Run apply = admin("apply", "-f", file(POLICY).toString(), "--actor", "deploy", "--json");
    assertThat(apply.code()).as(apply.err()).isZero();
    String version = apply.json().path("version").asText();
    assertThat(
            admin(
                    "set",
                    "cap",
                    "requests",
                    "--per-second",
                    "500",
                    "--target",
                    TARGET,
                    "--actor",
                    "ops")
                .code())
        .isZero();
    assertThat(
            admin("set", "weight", "--class", "P3", "0.4", "--target", TARGET, "--actor", "ops")
                .code())
        .isZero();
    assertThat(
            admin("set", "weight", "--class", "P3", "-1", "--target", TARGET, "--actor", "ops")
                .code())
        .isEqualTo(AdminCommand.INVALID);
    assertThat(
            admin("set", "weight", "--tenant", "acme", "3", "--target", TARGET, "--actor", "")
                .code())
        .isEqualTo(AdminCommand.INVALID);

    JsonNode trail = admin("audit", "--target", TARGET, "--json").json().path("entries");
    assertThat(trail).hasSize(3);
    assertThat(trail.get(0).path("actor").asText()).isEqualTo("deploy");
    assertThat(trail.get(0).path("field").asText()).isEqualTo("policy");
    assertThat(trail.get(0).path("from").asText()).isEqualTo("none");
    assertThat(trail.get(0).path("to").asText()).startsWith("version " + version + " from policy");
    assertThat(trail.get(1).path("field").asText()).isEqualTo("dimensions.requests");
    assertThat(trail.get(1).path("from").asText()).isEqualTo("cap 1000/s, burst 1000");
    assertThat(trail.get(1).path("to").asText()).isEqualTo("cap 500/s, burst 1000");
    assertThat(trail.get(2).path("field").asText()).isEqualTo("priorities.P3");
    assertThat(trail.get(2).path("from").asText()).isEqualTo("0.2");
    assertThat(trail.get(2).path("to").asText()).isEqualTo("0.4");
    assertThat(
            admin("show", "--target", TARGET, "--json")
                .json()
                .path("policy")
                .path("tenants")
                .path("weights")
                .path("acme")
                .asDouble())
        .as("a refused actor changed nothing")
        .isEqualTo(2.0);
  }

  @Test
  void invalidApplyFilesChangeNothingAndNameTheBadField() throws IOException {
    assertThat(admin("apply", "-f", file(POLICY).toString()).code()).isZero();
    JsonNode before = admin("show", "--target", TARGET, "--json").json();

    String[][] cases = {
      {POLICY.replace("burst: 1000", "burst: -5"), "dimensions.requests.burst"},
      {POLICY.replace("P2: 0.3", "P2: zero"), "priorities.P2"},
      {POLICY + "idle_ttl: soon\n", "idle_ttl"},
      {POLICY + "grant_tll: 15m\n", "grant_tll"},
      {
        POLICY.replace("{per_minute: 720000}", "{per_minute: 720000, per_second: 12000}"),
        "dimensions.tokens"
      },
      {POLICY + "safe_window: 0s\n", "safe_window"},
      {POLICY.replace("acme: 2.0", "acme: 0"), "tenants.weights.acme"},
      {"target: [openai\n", "(document)"},
    };
    for (String[] c : cases) {
      Run run = admin("apply", "-f", file(c[0]).toString(), "--json");
      assertThat(run.code()).as(c[1]).isEqualTo(AdminCommand.INVALID);
      assertThat(run.json().path("error").path("field").asText()).isEqualTo(c[1]);
      Run text = admin("apply", "-f", file(c[0]).toString());
      assertThat(text.err()).contains("(field: " + c[1] + ")");
    }
    Run otherTarget = admin("apply", "-f", file(POLICY).toString(), "--target", "anthropic/claude");
    assertThat(otherTarget.code()).isEqualTo(AdminCommand.INVALID);
    assertThat(otherTarget.err()).contains("field: target");
    Run missing = admin("apply", "-f", dir.resolve("absent.yaml").toString());
    assertThat(missing.code()).isEqualTo(AdminCommand.INVALID);
    assertThat(missing.err()).contains("field: --file");

    assertThat(admin("show", "--target", TARGET, "--json").json()).isEqualTo(before);
  }

  @Test
  void badSetValuesChangeNothingAndNameTheField() throws IOException {
    assertThat(admin("apply", "-f", file(POLICY).toString()).code()).isZero();
    JsonNode before = admin("show", "--target", TARGET, "--json").json();
    assertError(
        admin("set", "cap", "requests", "--per-second", "-1", "--target", TARGET, "--json"),
        AdminCommand.INVALID,
        "dimensions.requests.cap");
    assertError(
        admin(
            "set",
            "cap",
            "requests",
            "--per-second",
            "10",
            "--burst",
            "0",
            "--target",
            TARGET,
            "--json"),
        AdminCommand.INVALID,
        "dimensions.requests.burst");
    assertError(
        admin("set", "cap", "watts", "--per-second", "10", "--target", TARGET, "--json"),
        AdminCommand.INVALID,
        "dimensions");
    assertError(
        admin("set", "weight", "--class", "P9", "1", "--target", TARGET, "--json"),
        AdminCommand.INVALID,
        "priorities");
    assertError(
        admin("set", "weight", "--class", "P1", "0", "--target", TARGET, "--json"),
        AdminCommand.INVALID,
        "priorities.P1");
    assertError(
        admin("set", "weight", "--tenant", "acme", "-3", "--target", TARGET, "--json"),
        AdminCommand.INVALID,
        "tenants.weights.acme");
    // Not a decimal number at all: a usage error, as for any value of the wrong type.
    assertThat(admin("set", "weight", "--tenant", "acme", "NaN", "--target", TARGET).code())
        .isEqualTo(AdminCommand.USAGE);
    assertThat(admin("set", "cap", "requests", "--per-second", "10f", "--target", TARGET).code())
        .isEqualTo(AdminCommand.USAGE);
    assertThat(admin("show", "--target", TARGET, "--json").json()).isEqualTo(before);
  }

  @Test
  void exitCodesTellScriptsWhatWentWrong() throws IOException {
    assertThat(admin("show", "--target", "nobody/none").code()).isEqualTo(AdminCommand.NO_POLICY);
    assertError(
        admin("set", "cap", "requests", "--per-second", "5", "--target", "nobody/none", "--json"),
        AdminCommand.NO_POLICY,
        "target");

    Run down =
        run(
            "show",
            "--target",
            TARGET,
            "--redis",
            "redis://127.0.0.1:" + TestRedis.freePort(),
            "--timeout-ms",
            "1000");
    assertThat(down.code()).isEqualTo(AdminCommand.UNREACHABLE);
    assertThat(down.err()).contains("did not answer", "(field: --redis)");
    assertError(
        run("show", "--target", TARGET, "--redis", "http://example", "--json"),
        AdminCommand.INVALID,
        "--redis");
    assertError(
        run("show", "--target", TARGET, "--redis-cluster", "127.0.0.1", "--json"),
        AdminCommand.INVALID,
        "--redis-cluster");
    Run clusterDown =
        run(
            "show",
            "--target",
            TARGET,
            "--redis-cluster",
            "127.0.0.1:" + TestRedis.freePort(),
            "--timeout-ms",
            "1000");
    assertThat(clusterDown.code()).isEqualTo(AdminCommand.UNREACHABLE);
    assertThat(clusterDown.err()).contains("Redis at cluster 127.0.0.1:", "did not answer");
    assertError(
        admin("show", "--target", TARGET, "--timeout-ms", "0", "--json"),
        AdminCommand.INVALID,
        "--timeout-ms");

    assertThat(run().code()).isEqualTo(AdminCommand.USAGE);
    assertThat(run("set").code()).isEqualTo(AdminCommand.USAGE);
    assertThat(admin("show").code()).as("--target missing").isEqualTo(AdminCommand.USAGE);
    assertThat(admin("set", "cap", "requests", "--target", TARGET).code())
        .as("no rate")
        .isEqualTo(AdminCommand.USAGE);
    assertThat(
            admin(
                    "set",
                    "cap",
                    "requests",
                    "--per-second",
                    "1",
                    "--per-minute",
                    "60",
                    "--target",
                    TARGET)
                .code())
        .as("two rates")
        .isEqualTo(AdminCommand.USAGE);
    assertThat(admin("set", "cap", "requests", "--per-second", "lots", "--target", TARGET).code())
        .isEqualTo(AdminCommand.USAGE);
    assertThat(admin("show", "--target", TARGET, "--colour").code()).isEqualTo(AdminCommand.USAGE);
  }

  @Test
  void dryRunValidatesWithoutRedis() throws IOException {
    Run run =
        run(
            "apply",
            "-f",
            file(POLICY).toString(),
            "--dry-run",
            "--redis",
            "redis://127.0.0.1:" + TestRedis.freePort(),
            "--json");
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.json().path("written").asBoolean()).isFalse();
    assertThat(run.json().path("policy").path("target").asText()).isEqualTo(TARGET);
  }

  private static void assertError(Run run, int code, String field) throws IOException {
    assertThat(run.code()).as(run.out()).isEqualTo(code);
    assertThat(run.json().path("error").path("exit_code").asInt()).isEqualTo(code);
    assertThat(run.json().path("error").path("field").asText()).isEqualTo(field);
    assertThat(run.json().path("error").path("message").asText()).isNotBlank();
  }

  private RedisGate gate(ManualClock clock) {
    return RedisGate.connect(
        RedisGateConfig.builder(TestRedis.shared().url())
            .target(TARGET)
            .keyPrefix(prefix)
            .timeSource(TimeSource.caller(clock))
            .commandTimeout(Duration.ofSeconds(5))
            .build());
  }

  private Path file(String text) throws IOException {
    Path file = Files.createTempFile(dir, "policy", ".yaml");
    Files.writeString(file, text);
    return file;
  }

  /** Runs the admin command against this test's Redis and key prefix. */
  private Run admin(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    if (!all.isEmpty()) {
      all.addAll(List.of("--redis", TestRedis.shared().url(), "--key-prefix", prefix));
    }
    return run(all.toArray(String[]::new));
  }

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        new CommandLine(new AdminCommand())
            .setOut(new PrintWriter(out))
            .setErr(new PrintWriter(err))
            .execute(args);
    return new Run(code, out.toString(), err.toString());
  }
}
