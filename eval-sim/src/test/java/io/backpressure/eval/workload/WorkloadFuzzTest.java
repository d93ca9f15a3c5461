package io.backpressure.eval.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Generates bad workload files from one valid file — every field given a value of the wrong type or
 * out of range, every key given twice, an unknown key in every mapping, a second document — and
 * checks that each one is refused with a {@link WorkloadException} naming the field at fault.
 */
class WorkloadFuzzTest {

  /** One field of the base file: its dotted path, indentation, key, valid value and kind. */
  private record Field(String path, String indent, String key, String valid, Kind kind) {}

  private enum Kind {
    NUMBER,
    INTEGER,
    BOOL,
    TEXT,
    WINDOW,
    TOKENS,
    LATENCY,
    MAPPING_HEADER
  }

  private static final Map<Kind, List<String>> BAD =
      Map.of(
          Kind.NUMBER, List.of("'7'", "true", "[1]", "{a: 1}", "-1e300", "1e300"),
          Kind.INTEGER, List.of("'7'", "true", "[1]", "{a: 1}", "-5", "2.5", "1e300"),
          Kind.BOOL, List.of("'yes please'", "1", "[true]", "{a: true}"),
          Kind.TEXT, List.of("123", "[a]", "{a: b}", "true"),
          Kind.WINDOW, List.of("tumbling", "3", "[fixed]"),
          Kind.TOKENS,
              List.of(
                  "-1",
                  "1.5",
                  "'100'",
                  "{uniform: [3, 1]}",
                  "{uniform: [1]}",
                  "{normal: [1, 2]}",
                  "[1, 2]"),
          Kind.LATENCY, List.of("[150, 50]", "[1]", "'fast'", "[-1, 5]", "{min: 1}"),
          Kind.MAPPING_HEADER, List.of());

  private static final List<Field> FIELDS =
      List.of(
          new Field("name", "", "name", "fuzz", Kind.TEXT),
          new Field("duration_s", "", "duration_s", "30", Kind.NUMBER),
          new Field("warmup_s", "", "warmup_s", "2", Kind.NUMBER),
          new Field("start_at", "", "start_at", "2026-12-07T23:59:30-08:00", Kind.TEXT),
          new Field("upstream", "", "upstream", "", Kind.MAPPING_HEADER),
          new Field("upstream.window", "  ", "window", "fixed", Kind.WINDOW),
          new Field("upstream.period_s", "  ", "period_s", "1", Kind.NUMBER),
          new Field("upstream.requests_per_s", "  ", "requests_per_s", "60", Kind.NUMBER),
          new Field("upstream.tokens_per_s", "  ", "tokens_per_s", "12000", Kind.NUMBER),
          new Field("upstream.rejected_count", "  ", "rejected_count", "false", Kind.BOOL),
          new Field("upstream.latency_ms", "  ", "latency_ms", "[50, 150]", Kind.LATENCY),
          new Field("upstream.error_rate", "  ", "error_rate", "0.01", Kind.NUMBER),
          new Field("upstream.per_day", "  ", "per_day", "", Kind.MAPPING_HEADER),
          new Field("upstream.per_day.requests", "    ", "requests", "100000", Kind.INTEGER),
          new Field("upstream.per_day.tokens", "    ", "tokens", "9000000", Kind.INTEGER),
          new Field("upstream.per_day.time_zone", "    ", "time_zone", "UTC", Kind.TEXT),
          new Field("priorities", "", "priorities", "", Kind.MAPPING_HEADER),
          new Field("priorities.P1", "  ", "P1", "0.5", Kind.NUMBER),
          new Field("priorities.P2", "  ", "P2", "", Kind.MAPPING_HEADER),
          new Field("priorities.P2.weight", "    ", "weight", "0.5", Kind.NUMBER),
          new Field("priorities.P2.max_wait_s", "    ", "max_wait_s", "5", Kind.NUMBER),
          new Field("worker", "", "worker", "", Kind.MAPPING_HEADER),
          new Field("worker.slots", "  ", "slots", "8", Kind.INTEGER),
          new Field("gate", "", "gate", "", Kind.MAPPING_HEADER),
          new Field("gate.reservation", "  ", "reservation", "false", Kind.BOOL),
          new Field("gate.default_max_tokens", "  ", "default_max_tokens", "1024", Kind.INTEGER),
          new Field("gate.time_zone", "  ", "time_zone", "America/Los_Angeles", Kind.TEXT),
          new Field("gate.per_day", "  ", "per_day", "", Kind.MAPPING_HEADER),
          new Field("gate.per_day.requests", "    ", "requests", "50000", Kind.NUMBER),
          new Field("gate.per_day.tokens", "    ", "tokens", "900000", Kind.NUMBER),
          new Field("gate.per_month", "  ", "per_month", "", Kind.MAPPING_HEADER),
          new Field("gate.per_month.tokens", "    ", "tokens", "20000000", Kind.NUMBER),
          new Field("gate.quotas", "  ", "quotas", "", Kind.MAPPING_HEADER),
          new Field("gate.quotas.price", "    ", "price", "", Kind.MAPPING_HEADER),
          new Field(
              "gate.quotas.price.input_per_million",
              "      ",
              "input_per_million",
              "2.5",
              Kind.NUMBER),
          new Field(
              "gate.quotas.price.output_per_million",
              "      ",
              "output_per_million",
              "10",
              Kind.NUMBER),
          new Field("gate.quotas.tenants", "    ", "tenants", "", Kind.MAPPING_HEADER),
          new Field("gate.quotas.tenants.a", "      ", "a", "", Kind.MAPPING_HEADER),
          new Field("gate.quotas.tenants.a.currency", "        ", "currency", "1.5", Kind.NUMBER),
          new Field("gate.quotas.tenants.a.per", "        ", "per", "day", Kind.TEXT),
          new Field("gate.quotas.classes", "    ", "classes", "", Kind.MAPPING_HEADER),
          new Field("gate.quotas.classes.P2", "      ", "P2", "", Kind.MAPPING_HEADER),
          new Field("gate.quotas.classes.P2.tokens", "        ", "tokens", "500000", Kind.NUMBER),
          new Field("gate.quotas.classes.P2.per", "        ", "per", "month", Kind.TEXT),
          new Field("tenants", "", "tenants", "", Kind.MAPPING_HEADER),
          new Field("tenants[0].name", "  - ", "name", "a", Kind.TEXT),
          new Field("tenants[0].priority", "    ", "priority", "P1", Kind.TEXT),
          new Field("tenants[0].weight", "    ", "weight", "2", Kind.NUMBER),
          new Field("tenants[0].workflows", "    ", "workflows", "4", Kind.INTEGER),
          new Field(
              "tenants[0].calls_per_workflow", "    ", "calls_per_workflow", "100", Kind.INTEGER),
          new Field("tenants[0].prompt_tokens", "    ", "prompt_tokens", "100", Kind.TOKENS),
          new Field(
              "tenants[0].completion_tokens",
              "    ",
              "completion_tokens",
              "{uniform: [10, 90]}",
              Kind.TOKENS),
          new Field("tenants[0].max_tokens", "    ", "max_tokens", "80", Kind.INTEGER),
          new Field("tenants[0].start_s", "    ", "start_s", "1", Kind.NUMBER),
          new Field("tenants[0].stop_s", "    ", "stop_s", "20", Kind.NUMBER),
          new Field("tenants[0].deadline_s", "    ", "deadline_s", "10", Kind.NUMBER));

  /** The file with {@code value} at field {@code at} (or the base file when {@code at} is -1). */
  private static String file(int at, String value) {
    StringBuilder yaml = new StringBuilder();
    for (int i = 0; i < FIELDS.size(); i++) {
      Field f = FIELDS.get(i);
      yaml.append(f.indent()).append(f.key()).append(':');
      String v = i == at ? value : f.valid();
      if (!v.isEmpty()) {
        yaml.append(' ').append(v);
      }
      yaml.append('\n');
    }
    return yaml.toString();
  }

  /** The base file with line {@code at} repeated (a key given twice). */
  private static String duplicated(int at) {
    List<String> lines = new ArrayList<>(List.of(file(-1, "").split("\n")));
    Field f = FIELDS.get(at);
    String indent = f.indent().startsWith("  -") ? "    " : f.indent();
    lines.add(
        at + 1, indent + f.key() + ": " + (f.kind() == Kind.MAPPING_HEADER ? "{}" : f.valid()));
    return String.join("\n", lines) + "\n";
  }

  @Test
  void everyGeneratedBadFileIsRefusedNamingItsField() {
    assertThat(WorkloadReader.parse(file(-1, "")).tenants()).hasSize(1);
    int refused = 0;
    for (int i = 0; i < FIELDS.size(); i++) {
      Field f = FIELDS.get(i);
      for (String bad : BAD.get(f.kind())) {
        expectRefused(file(i, bad), f.path(), f.path() + " = " + bad);
        refused++;
      }
      expectRefused(duplicated(i), "(document)", "duplicate " + f.path());
      refused++;
      if (f.kind() == Kind.MAPPING_HEADER && !f.path().equals("tenants")) {
        List<String> lines = new ArrayList<>(List.of(file(-1, "").split("\n")));
        lines.add(i + 1, f.indent() + "  colour: blue");
        String unknown = String.join("\n", lines) + "\n";
        expectRefused(unknown, f.path() + ".colour", "unknown key under " + f.path());
        refused++;
      }
    }
    expectRefused(file(-1, "") + "---\n" + file(-1, ""), "(document)", "a second document");
    refused++;
    System.out.println(
        "WorkloadFuzzTest: "
            + refused
            + " bad workload files generated, all refused naming the field");
    assertThat(refused).isGreaterThan(150);
  }

  private static void expectRefused(String yaml, String field, String what) {
    Throwable thrown = catchThrowable(() -> WorkloadReader.parse(yaml));
    assertThat(thrown).as(what + "\n" + yaml).isInstanceOf(WorkloadException.class);
    assertThat(((WorkloadException) thrown).field())
        .as(what + ": " + thrown.getMessage())
        .startsWith(field);
  }
}
