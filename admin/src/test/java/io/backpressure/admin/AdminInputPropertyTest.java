package io.backpressure.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Policy;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.RedisPolicyStore;
import io.backpressure.redis.TestRedis;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

/**
 * Hostile {@code admin} values against a real Redis: every one exits with an error (1 invalid, 2
 * usage, 3 unreachable, 4 no such target) that names the option or field, the stored policy is left
 * as it was, and no password given in {@code --redis} ever appears in the output. The report counts
 * the kinds.
 */
class AdminInputPropertyTest {
  private static final String TARGET = "admin/fuzz";
  private static final String PASSWORD = "Pa55-w0rd%2Fsecret";
  private static final Policy POLICY =
      Policy.builder(TARGET)
          .dimension("requests", 100, 10)
          .dimension("tokens", 12_000, 12_000)
          .priority("P1", 0.7)
          .priority("P2", 0.3)
          .build();
  private static String prefix;
  private static String version;

  /** One hostile invocation, what the error must name, and its kind (for the report). */
  record Bad(String kind, List<String> args, String names) {}

  @BeforeContainer
  static void storePolicy() {
    prefix = TestRedis.freshPrefix();
    try (RedisPolicyStore store =
        RedisPolicyStore.connect(
            RedisGateConfig.builder(TestRedis.shared().url())
                .target(TARGET)
                .keyPrefix(prefix)
                .build())) {
      version = store.apply(POLICY).version();
    }
  }

  @Property(tries = 150)
  void everyBadValueIsRefused_namingIt_changingNothing_printingNoPassword(@ForAll("bad") Bad bad) {
    Statistics.collect(bad.kind());
    List<String> args = new ArrayList<>(bad.args());
    if (!args.contains("--redis")) {
      args.addAll(List.of("--redis", TestRedis.shared().url()));
    }
    args.addAll(
        List.of(
            "--key-prefix", prefix, "--timeout-ms", args.contains("--timeout-ms") ? "" : "2000"));
    if (args.get(args.size() - 1).isEmpty()) {
      args = args.subList(0, args.size() - 2);
    }
    AdminCommandTest.Run run = AdminCommandTest.run(args.toArray(String[]::new));
    String output = run.out() + run.err();
    assertThat(run.code()).as("exit code of %s: %s", args, output).isIn(1, 2, 3, 4);
    assertThat(output).as("output of %s", args).contains(bad.names());
    assertThat(output)
        .doesNotContain(PASSWORD)
        .doesNotContain("Pa55-w0rd")
        .doesNotContain("secret");
    try (RedisPolicyStore store =
        RedisPolicyStore.connect(
            RedisGateConfig.builder(TestRedis.shared().url())
                .target(TARGET)
                .keyPrefix(prefix)
                .build())) {
      assertThat(store.read().orElseThrow().version())
          .as("policy version after %s", args)
          .isEqualTo(version);
    }
  }

  @Provide
  Arbitrary<Bad> bad() {
    Arbitrary<String> notNumbers =
        Arbitraries.of(
            "10f",
            "0x10",
            "1e",
            "NaN",
            "Infinity",
            "-Infinity",
            "ten",
            "",
            "1,000",
            "1_000",
            "10d",
            "++1",
            "0x1p4",
            " 5");
    Arbitrary<String> outOfRange =
        Arbitraries.of("0", "-1", "-0.5", "1e300", "1e18", "0.0", "-1e-9");
    Arbitrary<Bad> cap =
        Combinators.combine(
                Arbitraries.of("--per-second", "--per-minute"),
                Arbitraries.oneOf(notNumbers, outOfRange))
            .as(
                (option, v) ->
                    new Bad(
                        "cap value",
                        List.of("set", "cap", "tokens", option, v, "--target", TARGET),
                        option));
    Arbitrary<Bad> burst =
        Arbitraries.oneOf(notNumbers, outOfRange, Arbitraries.of("0.5", "0.999", "1e-3"))
            .map(
                v ->
                    new Bad(
                        "burst value",
                        List.of(
                            "set",
                            "cap",
                            "requests",
                            "--per-second",
                            "100",
                            "--burst",
                            v,
                            "--target",
                            TARGET),
                        "burst"));
    Arbitrary<Bad> weight =
        Combinators.combine(
                Arbitraries.of("--class", "--tenant"), Arbitraries.oneOf(notNumbers, outOfRange))
            .as(
                (who, v) ->
                    new Bad(
                        "weight value",
                        List.of(
                            "set",
                            "weight",
                            who,
                            who.equals("--class") ? "P1" : "acme",
                            v,
                            "--target",
                            TARGET),
                        "WEIGHT"));
    Arbitrary<Bad> names =
        Arbitraries.of(
            new Bad(
                "unknown name",
                List.of("set", "weight", "--class", "P9", "2", "--target", TARGET),
                "P9"),
            new Bad(
                "unknown name",
                List.of("set", "cap", "widgets", "--per-second", "5", "--target", TARGET),
                "widgets"),
            new Bad("unknown name", List.of("show", "--target", "nobody/here"), "nobody/here"));
    Arbitrary<Bad> timeouts =
        Arbitraries.of("0", "-5", "600001", "99999999999", "1.5", "2s", "0x10", "")
            .map(
                v ->
                    new Bad(
                        "timeout value",
                        List.of("show", "--target", TARGET, "--timeout-ms", v),
                        "--timeout-ms"));
    Arbitrary<Bad> urls =
        Arbitraries.of(
                "redis://:" + PASSWORD + "@127.0.0.1:notaport",
                "redis://user:" + PASSWORD + "@",
                "redis://:" + PASSWORD + "@[::1",
                "rediss://user:" + PASSWORD + "@127.0.0.1:" + 1 + "/0",
                "redis://:" + PASSWORD + "@127.0.0.1:1",
                "redis://:" + PASSWORD + " @host:6379",
                "redis://:" + PASSWORD + "@host:6379/notadb",
                "http://:" + PASSWORD + "@127.0.0.1:6379")
            .map(
                url ->
                    new Bad(
                        "redis url with a password",
                        List.of("show", "--target", TARGET, "--redis", url, "--timeout-ms", "300"),
                        "--redis"));
    return Arbitraries.oneOf(cap, burst, weight, names, timeouts, urls);
  }
}
