package io.backpressure.eval.workload;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.backpressure.core.Dimension;
import io.backpressure.core.InvalidPolicyException;
import io.backpressure.core.Limits;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads the workload schema of eval/README.md. Strict: an unknown key is an error that names it and
 * lists the keys allowed there, a key given twice, a second YAML document and a value of the wrong
 * type (a string where a number belongs, {@code 1.9} where a whole number belongs, a list where a
 * mapping belongs) are errors, nothing is coerced, and every value is range-checked with a message
 * naming the field (e.g. {@code tenants[2].workflows}). A workload that could never be served — a
 * call larger than the provider's token cap per period, a request cap below one request per period
 * — is refused too. Omitted optional keys take the defaults of the schema.
 */
public final class WorkloadReader {
  private static final YAMLFactory FACTORY =
      YAMLFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
  private static final ObjectMapper YAML = new ObjectMapper(FACTORY);

  /** Calls per workflow when the file does not say: large enough to run for any duration. */
  static final long UNBOUNDED_CALLS = 1_000_000;

  private static final double MAX_SECONDS = 86_400;

  private WorkloadReader() {}

  /**
   * Opens a trace file a workload names ({@code tenants[i].trace.file}), relative to the workload.
   */
  @FunctionalInterface
  public interface TraceOpener {
    /**
     * Opens {@code file} for reading; the caller closes the stream.
     *
     * @param file the file as the workload names it
     * @throws IOException when there is no such file or it cannot be read
     */
    InputStream open(String file) throws IOException;
  }

  /**
   * Parses one workload that names no trace file.
   *
   * @throws WorkloadException naming the field at fault, also when a tenant names a trace file
   */
  public static Workload parse(String yaml) {
    return parse(
        yaml,
        file -> {
          throw new IOException("this workload is not read from a file; give the trace's path");
        });
  }

  /**
   * Parses one workload whose trace files, if any, {@code traces} opens.
   *
   * @throws WorkloadException naming the field at fault; for a bad trace file also its line and
   *     column
   */
  public static Workload parse(String yaml, TraceOpener traces) {
    JsonNode root;
    try (JsonParser parser = FACTORY.createParser(yaml)) {
      root = YAML.readTree(parser);
      if (parser.nextToken() != null) {
        throw new WorkloadException(
            "(document)",
            "a workload file holds one YAML document; a second one starts at line "
                + parser.currentTokenLocation().getLineNr());
      }
    } catch (JsonProcessingException e) {
      throw new WorkloadException(
          "(document)",
          "malformed workload YAML at line "
              + (e.getLocation() == null ? "?" : e.getLocation().getLineNr())
              + ": "
              + e.getOriginalMessage());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    if (root == null || !root.isObject()) {
      throw new WorkloadException("(document)", "a workload must be a YAML mapping");
    }
    onlyKeys(
        root,
        "",
        Set.of(
            "name",
            "description",
            "duration_s",
            "warmup_s",
            "upstream",
            "priorities",
            "worker",
            "gate",
            "tenants"));
    String name = text(root, "name", "name", null);
    String description = text(root, "description", "description", "");
    double duration = number(root, "duration_s", "duration_s", null, 0, false, MAX_SECONDS);
    double warmup = number(root, "warmup_s", "warmup_s", 0.0, 0, true, MAX_SECONDS);
    if (warmup >= duration) {
      throw new WorkloadException(
          "warmup_s", "warmup_s must be in [0, duration_s) = [0, " + duration + "), got " + warmup);
    }
    Workload.Upstream upstream = upstream(mapping(root, "upstream", "upstream", true), duration);
    List<Workload.PriorityWeight> priorities =
        priorities(mapping(root, "priorities", "priorities", true));
    JsonNode worker = mapping(root, "worker", "worker", true);
    onlyKeys(worker, "worker.", Set.of("slots"));
    int slots = (int) integer(worker, "slots", "worker.slots", null, 1, 100_000);
    Workload.GateOptions gate = gate(mapping(root, "gate", "gate", false), upstream);
    JsonNode tenantList = root.get("tenants");
    if (tenantList == null || !tenantList.isArray() || tenantList.isEmpty()) {
      throw new WorkloadException("tenants", "tenants is required and must be a non-empty list");
    }
    List<Workload.Tenant> tenants = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (int i = 0; i < tenantList.size(); i++) {
      String path = "tenants[" + i + "].";
      JsonNode node = tenantList.get(i);
      List<Workload.Tenant> entry =
          node != null && node.isObject() && node.has("trace")
              ? TraceTenants.read(node, path, priorities, duration, traces)
              : replicas(tenant(node, path, priorities, duration), node, path);
      for (Workload.Tenant tenant : entry) {
        if (!names.add(tenant.name())) {
          throw new WorkloadException(
              path + "name", "tenant name '" + tenant.name() + "' appears twice");
        }
        servable(tenant, path, upstream);
        tenants.add(tenant);
      }
    }
    return new Workload(
        name, description, duration, warmup, upstream, priorities, slots, gate, tenants, 1);
  }

  private static Workload.Upstream upstream(JsonNode node, double duration) {
    onlyKeys(
        node,
        "upstream.",
        Set.of(
            "window",
            "period_s",
            "requests_per_s",
            "tokens_per_s",
            "rejected_count",
            "latency_ms",
            "schedule",
            "outside",
            "error_rate",
            "latency_schedule"));
    String window = text(node, "window", "upstream.window", "fixed");
    if (!Set.of("fixed", "sliding", "bucket").contains(window)) {
      throw new WorkloadException(
          "upstream.window",
          "upstream.window must be one of fixed, sliding, bucket, got '" + window + "'");
    }
    double period = number(node, "period_s", "upstream.period_s", 1.0, 0.001, true, MAX_SECONDS);
    Double requests = nullableNumber(node, "requests_per_s", "upstream.requests_per_s", 1e9);
    Double tokens = nullableNumber(node, "tokens_per_s", "upstream.tokens_per_s", 1e12);
    if (requests == null && tokens == null) {
      throw new WorkloadException(
          "upstream.requests_per_s",
          "upstream must cap at least one of requests_per_s, tokens_per_s");
    }
    boolean rejectedCount = bool(node, "rejected_count", "upstream.rejected_count", false);
    double latencyMin = 50;
    double latencyMax = 150;
    JsonNode latency = node.get("latency_ms");
    if (latency != null && !latency.isNull()) {
      if (!latency.isArray()
          || latency.size() != 2
          || !latency.get(0).isNumber()
          || !latency.get(1).isNumber()) {
        throw new WorkloadException(
            "upstream.latency_ms",
            "upstream.latency_ms must be a list [min, max] of milliseconds, got " + latency);
      }
      latencyMin = latency.get(0).asDouble();
      latencyMax = latency.get(1).asDouble();
      if (!(latencyMin >= 0) || !(latencyMax >= latencyMin) || latencyMax > 600_000) {
        throw new WorkloadException(
            "upstream.latency_ms",
            "upstream.latency_ms must satisfy 0 <= min <= max <= 600000, got " + latency);
      }
    }
    List<Workload.CapChange> schedule = schedule(node.get("schedule"), requests, tokens, duration);
    Workload.Caps outside = Workload.Caps.NONE;
    JsonNode outsideNode = mapping(node, "outside", "upstream.outside", false);
    if (outsideNode != null) {
      onlyKeys(outsideNode, "upstream.outside.", Set.of("requests_per_s", "tokens_per_s"));
      outside = caps(outsideNode, "upstream.outside.", requests, tokens, true);
    }
    double errorRate = number(node, "error_rate", "upstream.error_rate", 0.0, 0, true, 0.99);
    Workload.Upstream upstream =
        new Workload.Upstream(
            window,
            period,
            requests,
            tokens,
            rejectedCount,
            latencyMin,
            latencyMax,
            schedule,
            outside,
            errorRate,
            latencySchedule(node.get("latency_schedule"), duration));
    roomEverywhere(upstream);
    return upstream;
  }

  /**
   * Refuses caps that leave the workload no room at some point of the run: below one request per
   * period, or no tokens, once the outside traffic has taken its rate.
   */
  private static void roomEverywhere(Workload.Upstream upstream) {
    List<Double> instants = new ArrayList<>(List.of(0.0));
    upstream.schedule().forEach(c -> instants.add(c.atS()));
    for (int i = 0; i < instants.size(); i++) {
      Workload.Caps caps = upstream.capsAt(instants.get(i));
      String where = i == 0 ? "upstream." : "upstream.schedule[" + (i - 1) + "].";
      String by =
          upstream.outsideOf(Dimension.REQUESTS) > 0 || upstream.outsideOf(Dimension.TOKENS) > 0
              ? " less upstream.outside"
              : "";
      if (caps.requestsPerS() != null
          && (caps.requestsPerS() - upstream.outsideOf(Dimension.REQUESTS)) * upstream.periodS()
              < 1) {
        throw new WorkloadException(
            where + "requests_per_s",
            where
                + "requests_per_s"
                + by
                + " must allow at least one request per period of "
                + fmt(upstream.periodS())
                + " s, got "
                + fmt(caps.requestsPerS()));
      }
      if (caps.tokensPerS() != null
          && !(caps.tokensPerS() - upstream.outsideOf(Dimension.TOKENS) > 0)) {
        throw new WorkloadException(
            where + "tokens_per_s",
            where
                + "tokens_per_s"
                + by
                + " must leave room for some tokens, got "
                + fmt(caps.tokensPerS()));
      }
    }
  }

  private static List<Workload.CapChange> schedule(
      JsonNode node, Double requests, Double tokens, double duration) {
    List<Workload.CapChange> schedule = new ArrayList<>();
    if (node == null || node.isNull()) {
      return schedule;
    }
    if (!node.isArray()) {
      throw new WorkloadException(
          "upstream.schedule",
          "upstream.schedule must be a list of {at_s, requests_per_s, tokens_per_s}, got " + node);
    }
    double previous = 0;
    for (int i = 0; i < node.size(); i++) {
      String path = "upstream.schedule[" + i + "].";
      JsonNode entry = node.get(i);
      if (!entry.isObject()) {
        throw new WorkloadException(
            path.substring(0, path.length() - 1), path + " must be a mapping, got " + entry);
      }
      onlyKeys(entry, path, Set.of("at_s", "requests_per_s", "tokens_per_s"));
      double at = number(entry, "at_s", path + "at_s", null, previous, false, duration);
      Workload.Caps caps = caps(entry, path, requests, tokens, false);
      schedule.add(new Workload.CapChange(at, caps));
      previous = at;
    }
    return schedule;
  }

  /**
   * Reads {@code requests_per_s} and {@code tokens_per_s} of {@code node}, each allowed only where
   * the upstream caps that dimension.
   *
   * @param zeroAllowed whether 0 is a valid rate (outside traffic) or rates must be positive (caps)
   */
  private static Workload.Caps caps(
      JsonNode node, String path, Double requests, Double tokens, boolean zeroAllowed) {
    Double[] values = new Double[2];
    String[] keys = {"requests_per_s", "tokens_per_s"};
    Double[] upstreamCaps = {requests, tokens};
    for (int d = 0; d < 2; d++) {
      JsonNode value = node.get(keys[d]);
      if (value == null || value.isNull()) {
        continue;
      }
      if (upstreamCaps[d] == null) {
        throw new WorkloadException(
            path + keys[d],
            path
                + keys[d]
                + " is given, but upstream."
                + keys[d]
                + " is null: the provider does not cap that dimension");
      }
      values[d] = number(node, keys[d], path + keys[d], null, 0, zeroAllowed, d == 0 ? 1e9 : 1e12);
    }
    return new Workload.Caps(values[0], values[1]);
  }

  private static List<Workload.PriorityWeight> priorities(JsonNode node) {
    List<Workload.PriorityWeight> list = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      String path = "priorities." + e.getKey();
      if (e.getValue().isObject()) {
        onlyKeys(e.getValue(), path + ".", Set.of("weight", "max_wait_s"));
        double weight = number(e.getValue(), "weight", path + ".weight", null, 0, false, 1e6);
        Double maxWait =
            nullableNumber(e.getValue(), "max_wait_s", path + ".max_wait_s", MAX_SECONDS);
        list.add(new Workload.PriorityWeight(e.getKey(), weight, maxWait));
      } else if (e.getValue().isNumber()) {
        list.add(
            new Workload.PriorityWeight(
                e.getKey(), number(node, e.getKey(), path, null, 0, false, 1e6)));
      } else {
        throw new WorkloadException(
            path,
            path
                + " must be a weight (a number in (0, 1000000]) or"
                + " {weight: w, max_wait_s: s}, got "
                + e.getValue());
      }
    }
    if (list.isEmpty()) {
      throw new WorkloadException(
          "priorities", "priorities must name at least one class, highest first");
    }
    return list;
  }

  private static Workload.GateOptions gate(JsonNode node, Workload.Upstream upstream) {
    if (node == null) {
      return new Workload.GateOptions(false, 1024, null, null);
    }
    onlyKeys(node, "gate.", Set.of("reservation", "default_max_tokens", "caps", "concurrency"));
    boolean reservation = bool(node, "reservation", "gate.reservation", false);
    long defaultMax =
        integer(node, "default_max_tokens", "gate.default_max_tokens", 1024L, 1, 10_000_000);
    JsonNode capsNode = mapping(node, "caps", "gate.caps", false);
    if (capsNode != null) {
      onlyKeys(capsNode, "gate.caps.", Set.of("requests_per_s", "tokens_per_s"));
    }
    Workload.Caps caps =
        capsNode == null
            ? null
            : caps(capsNode, "gate.caps.", upstream.requestsPerS(), upstream.tokensPerS(), false);
    if (caps != null
        && caps.requestsPerS() != null
        && caps.requestsPerS() * upstream.periodS() < 1) {
      throw new WorkloadException(
          "gate.caps.requests_per_s",
          "gate.caps.requests_per_s must allow at least one"
              + " request per upstream period ("
              + fmt(upstream.periodS())
              + " s), got "
              + caps.requestsPerS());
    }
    return new Workload.GateOptions(
        reservation,
        defaultMax,
        caps,
        concurrency(mapping(node, "concurrency", "gate.concurrency", false)));
  }

  /**
   * {@code gate.concurrency}: {@code {max_in_flight: N}} or {@code {adaptive: {min, max,
   * latency_target_s}}}, with the policy's ranges ({@link Limits.Concurrency}); null when absent.
   */
  private static Limits.Concurrency concurrency(JsonNode node) {
    if (node == null) {
      return null;
    }
    onlyKeys(node, "gate.concurrency.", Set.of("max_in_flight", "adaptive"));
    JsonNode adaptive = mapping(node, "adaptive", "gate.concurrency.adaptive", false);
    if ((adaptive == null) == !node.has("max_in_flight")) {
      throw new WorkloadException(
          "gate.concurrency",
          "gate.concurrency must give exactly one of max_in_flight and adaptive, got " + node);
    }
    try {
      if (adaptive == null) {
        return new Limits.Concurrency(
            (int)
                integer(
                    node,
                    "max_in_flight",
                    "gate.concurrency.max_in_flight",
                    null,
                    1,
                    Limits.MAX_IN_FLIGHT),
            Limits.Concurrency.DEFAULT_LEASE_TTL);
      }
      onlyKeys(adaptive, "gate.concurrency.adaptive.", Set.of("min", "max", "latency_target_s"));
      double target =
          number(
              adaptive,
              "latency_target_s",
              "gate.concurrency.adaptive.latency_target_s",
              null,
              0.001,
              true,
              MAX_SECONDS);
      return new Limits.Concurrency(
          new Limits.Adaptive(
              (int)
                  integer(
                      adaptive,
                      "min",
                      "gate.concurrency.adaptive.min",
                      null,
                      1,
                      Limits.MAX_IN_FLIGHT),
              (int)
                  integer(
                      adaptive,
                      "max",
                      "gate.concurrency.adaptive.max",
                      null,
                      1,
                      Limits.MAX_IN_FLIGHT),
              Duration.ofNanos(Math.round(target * 1e9))),
          Limits.Concurrency.DEFAULT_LEASE_TTL);
    } catch (InvalidPolicyException e) {
      throw new WorkloadException("gate." + e.field(), "gate." + e.getMessage());
    }
  }

  /**
   * {@code upstream.latency_schedule}: a list of {@code {at_s, latency_ms: [min, max]}} by
   * increasing {@code at_s} within the run.
   */
  private static List<Workload.LatencyChange> latencySchedule(JsonNode node, double duration) {
    List<Workload.LatencyChange> changes = new ArrayList<>();
    if (node == null || node.isNull()) {
      return changes;
    }
    if (!node.isArray()) {
      throw new WorkloadException(
          "upstream.latency_schedule",
          "upstream.latency_schedule must be a list of {at_s, latency_ms: [min, max]}, got "
              + node);
    }
    double last = -1;
    for (int i = 0; i < node.size(); i++) {
      String path = "upstream.latency_schedule[" + i + "].";
      JsonNode entry = node.get(i);
      if (!entry.isObject()) {
        throw new WorkloadException(
            path.substring(0, path.length() - 1),
            path.substring(0, path.length() - 1) + " must be a mapping {at_s, latency_ms}");
      }
      onlyKeys(entry, path, Set.of("at_s", "latency_ms"));
      double at = number(entry, "at_s", path + "at_s", null, 0, true, duration);
      if (!(at > last)) {
        throw new WorkloadException(
            path + "at_s",
            path + "at_s must be in [0, duration_s] and after the previous entry's, got " + at);
      }
      last = at;
      JsonNode latency = entry.get("latency_ms");
      if (latency == null
          || !latency.isArray()
          || latency.size() != 2
          || !latency.get(0).isNumber()
          || !latency.get(1).isNumber()
          || !(latency.get(0).asDouble() >= 0)
          || !(latency.get(1).asDouble() >= latency.get(0).asDouble())
          || latency.get(1).asDouble() > 600_000) {
        throw new WorkloadException(
            path + "latency_ms",
            path
                + "latency_ms must be a list [min, max] of milliseconds with 0 <= min <= max <="
                + " 600000, got "
                + latency);
      }
      changes.add(
          new Workload.LatencyChange(at, latency.get(0).asDouble(), latency.get(1).asDouble()));
    }
    return changes;
  }

  /**
   * Refuses a tenant whose calls the provider could never answer: its largest call (prompt plus
   * clamped completion) is above the token cap per period (less outside traffic) at every point of
   * the schedule.
   */
  private static void servable(Workload.Tenant tenant, String path, Workload.Upstream upstream) {
    double period = upstream.periodS();
    List<Workload.Caps> phases = new ArrayList<>();
    phases.add(upstream.initialCaps());
    upstream.schedule().forEach(c -> phases.add(upstream.capsAt(c.atS())));
    double tokenRoom = 0;
    for (Workload.Caps caps : phases) {
      if (caps.tokensPerS() != null) {
        tokenRoom =
            Math.max(
                tokenRoom, (caps.tokensPerS() - upstream.outsideOf(Dimension.TOKENS)) * period);
      }
    }
    long largest =
        tenant.promptTokens().max() + tenant.clampCompletion(tenant.completionTokens().max());
    if (upstream.tokensPerS() != null && largest > tokenRoom) {
      String field = tenant.replaysTrace() ? "trace" : "prompt_tokens";
      throw new WorkloadException(
          path + field,
          path
              + (tenant.replaysTrace()
                  ? "trace has a call (tenant " + tenant.name() + ") of "
                  : "prompt_tokens + completion_tokens can reach ")
              + largest
              + " tokens, above the most the provider accepts in one period ("
              + fmt(tokenRoom)
              + " tokens: upstream.tokens_per_s × period_s, less outside traffic); such a call could never be served");
    }
  }

  /**
   * The tenants one entry stands for: itself, or with {@code replicas: N} (1 to 100 000) N tenants
   * alike but for their names, {@code name-0} to {@code name-(N−1)}, each with arrivals of its own.
   */
  private static List<Workload.Tenant> replicas(
      Workload.Tenant tenant, JsonNode node, String path) {
    int replicas = (int) integer(node, "replicas", path + "replicas", 1L, 1, 100_000);
    if (replicas == 1) {
      return List.of(tenant);
    }
    List<Workload.Tenant> out = new ArrayList<>(replicas);
    for (int i = 0; i < replicas; i++) {
      out.add(tenant.withName(tenant.name() + "-" + i));
    }
    return out;
  }

  private static Workload.Tenant tenant(
      JsonNode node, String path, List<Workload.PriorityWeight> priorities, double duration) {
    if (node == null || !node.isObject()) {
      throw new WorkloadException(
          path.substring(0, path.length() - 1), path + " must be a mapping");
    }
    onlyKeys(
        node,
        path,
        Set.of(
            "name",
            "priority",
            "weight",
            "workflows",
            "calls_per_workflow",
            "prompt_tokens",
            "completion_tokens",
            "max_tokens",
            "open_loop_rps",
            "start_s",
            "stop_s",
            "deadline_s",
            "replicas"));
    String name = text(node, "name", path + "name", null);
    String priority = text(node, "priority", path + "priority", null);
    if (priorities.stream().noneMatch(p -> p.name().equals(priority))) {
      throw new WorkloadException(
          path + "priority",
          path
              + "priority must be one of "
              + priorities.stream().map(Workload.PriorityWeight::name).toList()
              + ", got '"
              + priority
              + "'");
    }
    double weight = number(node, "weight", path + "weight", 1.0, 0, false, 1e6);
    Double openLoop = nullableNumber(node, "open_loop_rps", path + "open_loop_rps", 1e6);
    boolean hasWorkflows = node.has("workflows") && !node.get("workflows").isNull();
    boolean hasCalls = node.has("calls_per_workflow") && !node.get("calls_per_workflow").isNull();
    int workflows = 0;
    long calls = UNBOUNDED_CALLS;
    if (openLoop == null) {
      if (!hasWorkflows) {
        throw new WorkloadException(
            path + "workflows", path + "workflows is required unless open_loop_rps is set");
      }
      workflows = (int) integer(node, "workflows", path + "workflows", null, 1, 100_000);
      calls =
          integer(
              node,
              "calls_per_workflow",
              path + "calls_per_workflow",
              UNBOUNDED_CALLS,
              1,
              Long.MAX_VALUE);
    } else if (hasWorkflows || hasCalls) {
      throw new WorkloadException(
          path + (hasWorkflows ? "workflows" : "calls_per_workflow"),
          path
              + "open_loop_rps and workflows/calls_per_workflow are exclusive: an open-loop tenant"
              + " submits one call per arrival");
    }
    TokenCount prompt = tokens(node, "prompt_tokens", path + "prompt_tokens");
    TokenCount completion = tokens(node, "completion_tokens", path + "completion_tokens");
    Long maxTokens = null;
    if (node.has("max_tokens") && !node.get("max_tokens").isNull()) {
      maxTokens = integer(node, "max_tokens", path + "max_tokens", null, 0, 10_000_000);
    }
    double start = number(node, "start_s", path + "start_s", 0.0, 0, true, duration);
    if (start >= duration) {
      throw new WorkloadException(
          path + "start_s",
          path
              + "start_s must be in [0, duration_s) = [0, "
              + fmt(duration)
              + "): a tenant that starts at the end never submits, got "
              + fmt(start));
    }
    Double stop = nullableNumber(node, "stop_s", path + "stop_s", MAX_SECONDS);
    if (stop != null && stop <= start) {
      throw new WorkloadException(
          path + "stop_s", path + "stop_s must be after start_s = " + start + ", got " + stop);
    }
    Double deadline = nullableNumber(node, "deadline_s", path + "deadline_s", MAX_SECONDS);
    return new Workload.Tenant(
        name,
        priority,
        weight,
        workflows,
        calls,
        prompt,
        completion,
        maxTokens,
        openLoop,
        start,
        stop,
        deadline,
        null);
  }

  private static TokenCount tokens(JsonNode node, String key, String field) {
    JsonNode value = node.get(key);
    if (value == null || value.isNull()) {
      return new TokenCount.Fixed(0);
    }
    if (value.isIntegralNumber()) {
      if (value.asLong() < 0 || value.asLong() > 10_000_000) {
        throw new WorkloadException(field, field + " must be in [0, 10000000], got " + value);
      }
      return new TokenCount.Fixed(value.asLong());
    }
    if (value.isObject()) {
      onlyKeys(value, field + ".", Set.of("uniform"));
      JsonNode bounds = value.get("uniform");
      if (bounds != null
          && bounds.isArray()
          && bounds.size() == 2
          && bounds.get(0).isIntegralNumber()
          && bounds.get(1).isIntegralNumber()) {
        long lo = bounds.get(0).asLong();
        long hi = bounds.get(1).asLong();
        if (lo >= 0 && hi >= lo && hi <= 10_000_000) {
          return new TokenCount.Uniform(lo, hi);
        }
      }
    }
    throw new WorkloadException(
        field,
        field
            + " must be a whole number of tokens or {uniform: [lo, hi]} with 0 <= lo <= hi <= 10000000, got "
            + value);
  }

  static void onlyKeys(JsonNode node, String prefix, Set<String> allowed) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!allowed.contains(key)) {
        throw new WorkloadException(
            prefix + key,
            "unknown key '"
                + prefix
                + key
                + "'; allowed here: "
                + String.join(", ", new TreeSet<>(allowed)));
      }
    }
  }

  static JsonNode mapping(JsonNode node, String key, String field, boolean required) {
    JsonNode value = node.get(key);
    if (value == null || value.isNull()) {
      if (required) {
        throw new WorkloadException(field, field + " is required");
      }
      return null;
    }
    if (!value.isObject()) {
      throw new WorkloadException(field, field + " must be a mapping, got " + value);
    }
    return value;
  }

  static String text(JsonNode node, String key, String field, String fallback) {
    JsonNode value = node.get(key);
    if (value == null || value.isNull()) {
      if (fallback == null) {
        throw new WorkloadException(field, field + " is required");
      }
      return fallback;
    }
    if (!value.isTextual() || (fallback == null && value.asText().isBlank())) {
      throw new WorkloadException(field, field + " must be a non-empty string, got " + value);
    }
    return value.asText();
  }

  private static boolean bool(JsonNode node, String key, String field, boolean fallback) {
    JsonNode value = node.get(key);
    if (value == null || value.isNull()) {
      return fallback;
    }
    if (!value.isBoolean()) {
      throw new WorkloadException(field, field + " must be true or false, got " + value);
    }
    return value.asBoolean();
  }

  static double number(
      JsonNode node,
      String key,
      String field,
      Double fallback,
      double min,
      boolean minIncluded,
      double max) {
    JsonNode value = node.get(key);
    if (value == null || value.isNull()) {
      if (fallback == null) {
        throw new WorkloadException(field, field + " is required");
      }
      return fallback;
    }
    double v = value.isNumber() ? value.asDouble() : Double.NaN;
    boolean aboveMin = minIncluded ? v >= min : v > min;
    if (!aboveMin || !(v <= max)) {
      throw new WorkloadException(
          field,
          field
              + " must be a number in "
              + (minIncluded ? "[" : "(")
              + fmt(min)
              + ", "
              + fmt(max)
              + "], got "
              + value);
    }
    return v;
  }

  static Double nullableNumber(JsonNode node, String key, String field, double max) {
    JsonNode value = node.get(key);
    if (value == null || value.isNull()) {
      return null;
    }
    return number(node, key, field, null, 0, false, max);
  }

  static long integer(JsonNode node, String key, String field, Long fallback, long min, long max) {
    JsonNode value = node.get(key);
    if (value == null || value.isNull()) {
      if (fallback == null) {
        throw new WorkloadException(field, field + " is required");
      }
      return fallback;
    }
    if (!value.isIntegralNumber()
        || !value.canConvertToLong()
        || value.asLong() < min
        || value.asLong() > max) {
      throw new WorkloadException(
          field, field + " must be a whole number in [" + min + ", " + max + "], got " + value);
    }
    return value.asLong();
  }

  static String fmt(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
