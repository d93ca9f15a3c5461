package io.backpressure.policy.yaml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.backpressure.core.InvalidPolicyException;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Hostile policy files: every one is rejected with an {@link InvalidPolicyException} whose field is
 * the one at fault and whose message names it; none is read with a silent default, a coercion or
 * the last of two values. The report counts the kinds of bad input generated.
 */
class PolicyInputPropertyTest {

  /** A valid policy, one key per line; {@code path} is the field each line sets. */
  private record Line(String path, String text) {}

  private static final List<Line> VALID =
      List.of(
          new Line("target", "target: openai/gpt-4o"),
          new Line("dimensions", "dimensions:"),
          new Line("dimensions.requests", "  requests:"),
          new Line("dimensions.requests.per_minute", "    per_minute: 3600"),
          new Line("dimensions.requests.burst", "    burst: 2"),
          new Line("dimensions.tokens", "  tokens:"),
          new Line("dimensions.tokens.per_second", "    per_second: 12000"),
          new Line("dimensions.tokens.burst", "    burst: 2000"),
          new Line("priorities", "priorities:"),
          new Line("priorities.P1", "  P1: 0.5"),
          new Line("priorities.P2", "  P2: 0.3"),
          new Line("tenants", "tenants:"),
          new Line("tenants.default_weight", "  default_weight: 1.0"),
          new Line("tenants.weights", "  weights:"),
          new Line("tenants.weights.acme", "    acme: 2.0"),
          new Line("reservation", "reservation:"),
          new Line("reservation.enabled", "  enabled: true"),
          new Line("reservation.default_max_tokens", "  default_max_tokens: 512"),
          new Line("idle_ttl", "idle_ttl: 10s"),
          new Line("safe_window", "safe_window: 1s"),
          new Line("share_horizon", "share_horizon: 1500ms"),
          new Line("grant_ttl", "grant_ttl: 15m"));

  /** A bad policy file, the field an error must name, and the kind of badness (for the report). */
  record Bad(String kind, String yaml, String field) {}

  private static String render(List<Line> lines) {
    StringBuilder text = new StringBuilder();
    lines.forEach(l -> text.append(l.text()).append('\n'));
    return text.toString();
  }

  private static int index(String path) {
    for (int i = 0; i < VALID.size(); i++) {
      if (VALID.get(i).path().equals(path)) {
        return i;
      }
    }
    throw new IllegalArgumentException(path);
  }

  /** The policy with the value of the leaf {@code path} replaced by {@code value}. */
  private static String with(String path, String value) {
    List<Line> lines = new ArrayList<>(VALID);
    Line line = lines.get(index(path));
    String key = line.text().substring(0, line.text().indexOf(':') + 1);
    lines.set(index(path), new Line(path, key + " " + value));
    return render(lines);
  }

  @Example
  void theValidPolicyParses() {
    assertThat(PolicyYaml.parse(render(VALID)).defaultMaxTokens()).isEqualTo(512);
  }

  @Property(tries = 400)
  void everyBadPolicyIsRejected_namingItsField(@ForAll("bad") Bad bad) {
    Statistics.collect(bad.kind());
    InvalidPolicyException e =
        catchThrowableOfType(() -> PolicyYaml.parse(bad.yaml()), InvalidPolicyException.class);
    assertThat(e).as("rejected:%n%s", bad.yaml()).isNotNull();
    assertThat(e.field()).as("field named for%n%s", bad.yaml()).isEqualTo(bad.field());
    if (!bad.field().equals("(document)")) {
      assertThat(e.getMessage()).contains(bad.field());
    }
  }

  @Provide
  Arbitrary<Bad> bad() {
    return Arbitraries.oneOf(
        duplicateKeys(),
        wrongTypes(),
        secondDocuments(),
        tinyRequestBursts(),
        durationsOutOfRange());
  }

  /** A key given twice, the second time with another value (at any depth). */
  private Arbitrary<Bad> duplicateKeys() {
    List<String> leaves =
        List.of(
            "target",
            "dimensions.requests.per_minute",
            "dimensions.requests.burst",
            "dimensions.tokens.burst",
            "priorities.P1",
            "priorities.P2",
            "tenants.default_weight",
            "tenants.weights.acme",
            "reservation.enabled",
            "reservation.default_max_tokens",
            "idle_ttl",
            "grant_ttl",
            "dimensions.requests");
    return Combinators.combine(Arbitraries.of(leaves), Arbitraries.integers().between(2, 999))
        .as(
            (path, n) -> {
              List<Line> lines = new ArrayList<>(VALID);
              int i = index(path);
              Line line = lines.get(i);
              String key = line.text().substring(0, line.text().indexOf(':') + 1);
              String copy =
                  path.equals("dimensions.requests")
                      ? key + " {per_second: " + n + "}"
                      : key + " " + n;
              lines.add(
                  path.equals("dimensions.requests") ? index("dimensions.tokens") : i + 1,
                  new Line(path, copy));
              return new Bad("duplicate key", render(lines), path);
            });
  }

  /** A value of the wrong type where no coercion may happen. */
  private Arbitrary<Bad> wrongTypes() {
    Arbitrary<Bad> booleans =
        Arbitraries.of("\"yes please\"", "yes please", "1", "0", "[true]", "{on: 1}", "\"true\"")
            .map(
                v ->
                    new Bad(
                        "not a boolean", with("reservation.enabled", v), "reservation.enabled"));
    Arbitrary<Bad> integers =
        Arbitraries.doubles()
            .between(1.01, 1e6)
            .ofScale(2)
            .filter(d -> d != Math.rint(d))
            .map(
                d ->
                    new Bad(
                        "not an integer",
                        with("reservation.default_max_tokens", Double.toString(d)),
                        "reservation.default_max_tokens"));
    Arbitrary<Bad> numbers =
        Combinators.combine(
                Arbitraries.of(
                    "dimensions.requests.per_minute",
                    "dimensions.tokens.burst",
                    "priorities.P1",
                    "tenants.default_weight",
                    "tenants.weights.acme"),
                Arbitraries.of("\"10\"", "ten", "true", "[1, 2]", "{a: 1}", "null"))
            .as((path, v) -> new Bad("not a number", with(path, v), numberField(path, v)));
    Arbitrary<Bad> mappings =
        Arbitraries.of("[a, b]", "[]", "acme", "2.0", "[{acme: 2}]")
            .map(
                v -> {
                  List<Line> lines = new ArrayList<>(VALID);
                  lines.remove(index("tenants.weights.acme"));
                  lines.set(
                      index("tenants.weights"), new Line("tenants.weights", "  weights: " + v));
                  return new Bad("not a mapping", render(lines), "tenants.weights");
                });
    Arbitrary<Bad> strings =
        Arbitraries.of("42", "[a]", "{a: b}", "true")
            .map(v -> new Bad("not a string", with("target", v), "target"));
    return Arbitraries.oneOf(booleans, integers, numbers, mappings, strings);
  }

  /**
   * The field an error about a non-number at {@code path} must name: the path itself, but for a
   * mapping given as a class's weight, which is the long form ({@code weight}, {@code max_wait}),
   * so the error names the key it does not know.
   */
  private static String numberField(String path, String value) {
    return path.startsWith("priorities.") && value.equals("{a: 1}") ? path + ".a" : path;
  }

  /** Anything after a document separator. */
  private Arbitrary<Bad> secondDocuments() {
    return Arbitraries.of(
            "---\n" + render(VALID), "---\ntarget: other\n", "---\n{}\n", "--- 1\n", "---\n- a\n")
        .map(extra -> new Bad("second document", render(VALID) + extra, "(document)"));
  }

  /** A requests burst no request fits in. */
  private Arbitrary<Bad> tinyRequestBursts() {
    return Arbitraries.doubles()
        .between(0.001, 0.999)
        .ofScale(3)
        .map(
            b ->
                new Bad(
                    "requests burst below one request",
                    with("dimensions.requests.burst", Double.toString(b)),
                    "dimensions.requests.burst"));
  }

  /** A TTL, horizon or safe window outside its range. */
  private Arbitrary<Bad> durationsOutOfRange() {
    Arbitrary<String> huge =
        Arbitraries.of("1e300", "1e12", "100000h", "25h", "PT1000000H", "9999999999");
    Arbitrary<String> tiny = Arbitraries.of("0", "0s", "0.0000001", "-5", "0.5ms", "PT0S");
    return Combinators.combine(
            Arbitraries.of("idle_ttl", "safe_window", "share_horizon", "grant_ttl"),
            Arbitraries.oneOf(huge, tiny))
        .as((path, v) -> new Bad("duration out of range", with(path, v), path));
  }
}
