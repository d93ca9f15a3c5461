package io.backpressure.eval.workload;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a tenant entry with a {@code trace} mapping (eval/README.md, trace sources) into the
 * tenants it stands for, each replaying its own rows of the file.
 *
 * <p>Which tenant a row goes to:
 *
 * <ul>
 *   <li>with a {@code tenant} column, the tenant named by the row's value;
 *   <li>without one, and {@code split: N} (default 1), row {@code i} of the file (0-based, counting
 *       data rows only, before slicing, so a slice never moves a row to another tenant) goes to
 *       {@code NAME-(i mod N)}, or to {@code NAME} itself when N is 1; with a {@code class} column,
 *       rows are counted per class and named {@code NAME-CLASS-j} (or {@code NAME-CLASS}).
 * </ul>
 *
 * A row's class is the {@code class} column's value when there is one (a tenant belongs to one
 * class: a tenant whose rows name two classes is refused), else the entry's {@code priority}.
 *
 * <p>Time: with {@code r} a row's seconds after the file's first row, rows with {@code from_s <= r
 * < to_s} are kept and arrive at {@code start_s + (r - from_s) / speed}; arrivals at or after
 * {@code duration_s} are dropped. A tenant left with no rows is not created; an entry left with
 * none is refused.
 */
final class TraceTenants {
  private static final Set<String> ENTRY_KEYS =
      Set.of("name", "priority", "weight", "max_tokens", "start_s", "deadline_s", "trace");
  private static final Set<String> TRACE_KEYS =
      Set.of(
          "file",
          "timestamp",
          "prompt_tokens",
          "completion_tokens",
          "tenant",
          "class",
          "from_s",
          "to_s",
          "speed",
          "split");

  private TraceTenants() {}

  /**
   * The tenants of one trace entry, in order of their first row.
   *
   * @param path the entry's field prefix, e.g. {@code tenants[2].}
   * @throws WorkloadException naming the field, or the trace file's line and column
   */
  static List<Workload.Tenant> read(
      JsonNode node,
      String path,
      List<Workload.PriorityWeight> priorities,
      double duration,
      WorkloadReader.TraceOpener opener) {
    for (String key : List.of("workflows", "calls_per_workflow", "open_loop_rps")) {
      if (node.has(key)) {
        throw new WorkloadException(
            path + key,
            path
                + key
                + " and trace are exclusive: a tenant replaying a trace submits one call per row");
      }
    }
    for (String key : List.of("prompt_tokens", "completion_tokens")) {
      if (node.has(key)) {
        throw new WorkloadException(
            path + key,
            path + key + " is not allowed beside trace; name the column with trace." + key);
      }
    }
    if (node.has("stop_s")) {
      throw new WorkloadException(
          path + "stop_s", path + "stop_s is not allowed beside trace; slice it with trace.to_s");
    }
    WorkloadReader.onlyKeys(node, path, ENTRY_KEYS);
    String name = WorkloadReader.text(node, "name", path + "name", null);
    double weight = WorkloadReader.number(node, "weight", path + "weight", 1.0, 0, false, 1e6);
    Long maxTokens = null;
    if (node.has("max_tokens") && !node.get("max_tokens").isNull()) {
      maxTokens =
          WorkloadReader.integer(node, "max_tokens", path + "max_tokens", null, 0, 10_000_000);
    }
    double start = WorkloadReader.number(node, "start_s", path + "start_s", 0.0, 0, true, duration);
    if (start >= duration) {
      throw new WorkloadException(
          path + "start_s",
          path + "start_s must be in [0, duration_s) = [0, " + WorkloadReader.fmt(duration) + ")");
    }
    Double deadline =
        WorkloadReader.nullableNumber(node, "deadline_s", path + "deadline_s", 86_400);

    String tp = path + "trace.";
    JsonNode trace = WorkloadReader.mapping(node, "trace", path + "trace", true);
    WorkloadReader.onlyKeys(trace, tp, TRACE_KEYS);
    String file = WorkloadReader.text(trace, "file", tp + "file", null);
    TraceFile.Columns columns =
        new TraceFile.Columns(
            WorkloadReader.text(trace, "timestamp", tp + "timestamp", null),
            WorkloadReader.text(trace, "prompt_tokens", tp + "prompt_tokens", null),
            optionalText(trace, "completion_tokens", tp),
            optionalText(trace, "tenant", tp),
            optionalText(trace, "class", tp));
    boolean priorityGiven = node.has("priority") && !node.get("priority").isNull();
    if (columns.clazz() != null && priorityGiven) {
      throw new WorkloadException(
          path + "priority",
          path + "priority and trace.class are exclusive: the class column gives each row's class");
    }
    String priority = null;
    if (columns.clazz() == null) {
      priority = WorkloadReader.text(node, "priority", path + "priority", null);
      checkClass(priority, priorities, path + "priority", path + "priority");
    }
    double from = WorkloadReader.number(trace, "from_s", tp + "from_s", 0.0, 0, true, 1e9);
    Double to = WorkloadReader.nullableNumber(trace, "to_s", tp + "to_s", 1e9);
    if (to != null && to <= from) {
      throw new WorkloadException(
          tp + "to_s",
          tp + "to_s must be after from_s = " + WorkloadReader.fmt(from) + ", got " + to);
    }
    double speed = WorkloadReader.number(trace, "speed", tp + "speed", 1.0, 0, false, 1e6);
    boolean splitGiven = trace.has("split") && !trace.get("split").isNull();
    if (splitGiven && columns.tenant() != null) {
      throw new WorkloadException(
          tp + "split",
          tp + "split and trace.tenant are exclusive: split spreads rows that name no tenant");
    }
    int split = (int) WorkloadReader.integer(trace, "split", tp + "split", 1L, 1, 100_000);

    List<TraceFile.Row> rows;
    try (InputStream in = opener.open(file)) {
      rows = TraceFile.read(in, file, tp + "file", columns);
    } catch (IOException e) {
      throw new WorkloadException(
          tp + "file", tp + "file: cannot read trace file '" + file + "': " + e.getMessage());
    }

    Map<String, Group> groups = new LinkedHashMap<>();
    Map<String, Integer> rowsPerClass = new LinkedHashMap<>();
    for (int i = 0; i < rows.size(); i++) {
      TraceFile.Row row = rows.get(i);
      String rowClass = row.clazz() != null ? row.clazz() : priority;
      if (row.clazz() != null) {
        checkClass(
            rowClass,
            priorities,
            tp + "class",
            file + " line " + row.line() + ", column " + columns.clazz());
      }
      String tenant;
      if (row.tenant() != null) {
        tenant = row.tenant();
      } else {
        String base = row.clazz() != null ? name + "-" + row.clazz() : name;
        int index = rowsPerClass.merge(rowClass, 1, Integer::sum) - 1;
        tenant = split == 1 ? base : base + "-" + (index % split);
      }
      Group group = groups.computeIfAbsent(tenant, t -> new Group(rowClass, row.line()));
      if (!group.priority.equals(rowClass)) {
        throw new WorkloadException(
            tp + "class",
            file
                + " line "
                + row.line()
                + ", column "
                + columns.clazz()
                + ": tenant '"
                + tenant
                + "' is in class "
                + group.priority
                + " (line "
                + group.firstLine
                + ") and here in "
                + rowClass
                + "; a tenant belongs to one class");
      }
      double r = row.atS();
      if (r < from || (to != null && r >= to)) {
        continue;
      }
      double at = start + (r - from) / speed;
      if (at >= duration) {
        continue;
      }
      group.rows.add(row);
      group.times.add(at);
    }

    List<Workload.Tenant> tenants = new ArrayList<>();
    for (Map.Entry<String, Group> e : groups.entrySet()) {
      Group g = e.getValue();
      int n = g.rows.size();
      if (n == 0) {
        continue;
      }
      double[] times = new double[n];
      long[] prompt = new long[n];
      long[] completion = new long[n];
      for (int i = 0; i < n; i++) {
        times[i] = g.times.get(i);
        prompt[i] = g.rows.get(i).prompt();
        completion[i] = g.rows.get(i).completion();
      }
      tenants.add(
          new Workload.Tenant(
              e.getKey(),
              g.priority,
              weight,
              0,
              1,
              new TokenCount.Observed(prompt),
              new TokenCount.Observed(completion),
              maxTokens,
              null,
              start,
              null,
              deadline,
              new TraceArrivals(times, prompt, completion)));
    }
    if (tenants.isEmpty()) {
      throw new WorkloadException(
          tp + "from_s",
          tp
              + "from_s/to_s leave no row of '"
              + file
              + "' arriving before duration_s = "
              + WorkloadReader.fmt(duration)
              + " s (the file spans "
              + WorkloadReader.fmt(Math.round(rows.get(rows.size() - 1).atS() * 1000) / 1000.0)
              + " s)");
    }
    return tenants;
  }

  private static String optionalText(JsonNode trace, String key, String prefix) {
    JsonNode value = trace.get(key);
    return value == null || value.isNull()
        ? null
        : WorkloadReader.text(trace, key, prefix + key, null);
  }

  private static void checkClass(
      String clazz, List<Workload.PriorityWeight> priorities, String field, String where) {
    if (priorities.stream().noneMatch(p -> p.name().equals(clazz))) {
      throw new WorkloadException(
          field,
          where
              + ": class must be one of "
              + priorities.stream().map(Workload.PriorityWeight::name).toList()
              + ", got '"
              + clazz
              + "'");
    }
  }

  /** The rows of one tenant. */
  private static final class Group {
    final String priority;
    final int firstLine;
    final List<TraceFile.Row> rows = new ArrayList<>();
    final List<Double> times = new ArrayList<>();

    Group(String priority, int firstLine) {
      this.priority = priority;
      this.firstLine = firstLine;
    }
  }
}
