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
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
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

  /** The first second of the year 10000: {@code start_at} must come before it. */
  private static final long MAX_EPOCH_SECOND = 253_402_300_800L;

  /** The largest calendar limit, quota or cap per day, as the policy allows. */
  private static final double MAX_CALENDAR = 1e15;

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
            "start_at",
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
    Instant startAt = startAt(root);
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
    for (String priority : gate.limits().classQuotas().keySet()) {
      if (workloadClass(priorities, priority) < 0) {
        throw new WorkloadException(
            "gate.quotas.classes." + priority,
            "gate.quotas.classes."
                + priority
                + " is a quota on a class the workload does not have; its classes: "
                + priorities.stream().map(Workload.PriorityWeight::name).toList());
      }
    }
    for (String tenant : gate.limits().tenantQuotas().keySet()) {
      if (!names.contains(tenant)) {
        throw new WorkloadException(
            "gate.quotas.tenants." + tenant,
            "gate.quotas.tenants."
                + tenant
                + " is a quota of a tenant the workload does not have; its tenants: "
                + new TreeSet<>(names));
      }
    }
    return new Workload(
        name,
        description,
        duration,
        warmup,
        startAt,
        upstream,
        priorities,
        slots,
        gate,
        tenants,
        1);
  }

  private static int workloadClass(List<Workload.PriorityWeight> priorities, String name) {
    for (int k = 0; k < priorities.size(); k++) {
      if (priorities.get(k).name().equals(name)) {
        return k;
      }
    }
    return -1;
  }

  /**
   * {@code start_at}: the calendar instant at t = 0, an ISO-8601 date and time with its offset
   * ({@code 2026-03-07T23:59:30-08:00}, {@code 2026-03-08T07:59:30Z}); {@link
   * Workload#DEFAULT_START} when absent.
   */
  private static Instant startAt(JsonNode root) {
    JsonNode value = root.get("start_at");
    if (value == null || value.isNull()) {
      return Workload.DEFAULT_START;
    }
    try {
      if (value.isTextual()) {
        Instant at = OffsetDateTime.parse(value.asText()).toInstant();
        if (at.getEpochSecond() >= 0 && at.getEpochSecond() < MAX_EPOCH_SECOND) {
          return at;
        }
      }
    } catch (DateTimeException e) {
      // answered below, naming the field
    }
    throw new WorkloadException(
        "start_at",
        "start_at must be a date and time with its offset between 1970 and 9999, such as"
            + " 2026-03-07T23:59:30-08:00 or 2026-03-08T07:59:30Z, got "
            + value);
  }

  /**
   * A time zone named at {@code field}: a region ID of the tz database or an offset; UTC when
   * absent.
   */
  private static ZoneId zone(JsonNode node, String key, String field) {
    JsonNode value = node.get(key);
    if (value == null || value.isNull()) {
      return ZoneId.of("UTC");
    }
    if (!value.isTextual()) {
      throw new WorkloadException(
          field,
          field
              + " must be a region ID of the tz database (such as UTC or America/Los_Angeles) or an"
              + " offset such as +01:00, got "
              + value);
    }
    try {
      return Limits.zone(value.asText());
    } catch (InvalidPolicyException e) {
      throw new WorkloadException(field, field + e.getMessage().substring("time_zone".length()));
    }
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
            "latency_schedule",
            "per_day"));
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
            latencySchedule(node.get("latency_schedule"), duration),
            upstreamPerDay(mapping(node, "per_day", "upstream.per_day", false)));
    roomEverywhere(upstream);
    return upstream;
  }

  /**
   * {@code upstream.per_day}: {@code {requests, tokens, time_zone}}, each cap a whole number in [1,
   * 1e15] or absent, at least one given; the zone UTC by default.
   */
  private static Workload.DayCaps upstreamPerDay(JsonNode node) {
    if (node == null) {
      return Workload.DayCaps.NONE;
    }
    onlyKeys(node, "upstream.per_day.", Set.of("requests", "tokens", "time_zone"));
    Double requests = null;
    Double tokens = null;
    if (node.has("requests") && !node.get("requests").isNull()) {
      requests =
          (double)
              integer(node, "requests", "upstream.per_day.requests", null, 1, (long) MAX_CALENDAR);
    }
    if (node.has("tokens") && !node.get("tokens").isNull()) {
      tokens =
          (double) integer(node, "tokens", "upstream.per_day.tokens", null, 1, (long) MAX_CALENDAR);
    }
    if (requests == null && tokens == null) {
      throw new WorkloadException(
          "upstream.per_day", "upstream.per_day must cap at least one of requests, tokens");
    }
    return new Workload.DayCaps(
        requests, tokens, zone(node, "time_zone", "upstream.per_day.time_zone"));
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
      return new Workload.GateOptions(false, 1024, null, Limits.NONE);
    }
    onlyKeys(
        node,
        "gate.",
        Set.of(
            "reservation",
            "default_max_tokens",
            "caps",
            "concurrency",
            "time_zone",
            "per_day",
            "per_month",
            "quotas"));
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
    Workload.Caps configured =
        new Workload.GateOptions(reservation, defaultMax, caps, Limits.NONE)
            .configuredCaps(upstream);
    List<Limits.Calendar> calendar = new ArrayList<>();
    for (Limits.Period period : Limits.Period.values()) {
      calendar.addAll(calendar(node, period, configured, upstream));
    }
    JsonNode quotas = mapping(node, "quotas", "gate.quotas", false);
    Limits.Price price = null;
    Map<String, Limits.Quota> tenantQuotas = new HashMap<>();
    Limits.Quota defaultTenantQuota = null;
    Map<String, Limits.Quota> classQuotas = new HashMap<>();
    if (quotas != null) {
      onlyKeys(quotas, "gate.quotas.", Set.of("price", "tenants", "default_tenant", "classes"));
      if (upstream.tokensPerS() == null) {
        throw new WorkloadException(
            "gate.quotas",
            "gate.quotas count tokens, and the gate meters none: upstream.tokens_per_s is null");
      }
      price = price(mapping(quotas, "price", "gate.quotas.price", false));
      quotaMap(quotas, "tenants", price, tenantQuotas);
      JsonNode fallback = quotas.get("default_tenant");
      if (fallback != null && !fallback.isNull()) {
        defaultTenantQuota = quota(fallback, "gate.quotas.default_tenant", price);
      }
      quotaMap(quotas, "classes", price, classQuotas);
    }
    Limits.Concurrency concurrency =
        concurrency(mapping(node, "concurrency", "gate.concurrency", false));
    ZoneId zone = zone(node, "time_zone", "gate.time_zone");
    try {
      return new Workload.GateOptions(
          reservation,
          defaultMax,
          caps,
          new Limits(
              concurrency, calendar, zone, price, tenantQuotas, defaultTenantQuota, classQuotas));
    } catch (InvalidPolicyException e) {
      throw new WorkloadException("gate." + e.field(), "gate." + e.getMessage());
    }
  }

  /**
   * {@code gate.per_day} or {@code gate.per_month}: {@code {requests, tokens}}, each a number in
   * (0, 1e15] on a dimension the gate meters.
   */
  private static List<Limits.Calendar> calendar(
      JsonNode gate, Limits.Period period, Workload.Caps configured, Workload.Upstream upstream) {
    String path = "gate." + period.yamlName();
    JsonNode node = mapping(gate, period.yamlName(), path, false);
    if (node == null) {
      return List.of();
    }
    onlyKeys(node, path + ".", Set.of("requests", "tokens"));
    List<Limits.Calendar> out = new ArrayList<>();
    for (String dimension : List.of(Dimension.REQUESTS, Dimension.TOKENS)) {
      if (!node.has(dimension) || node.get(dimension).isNull()) {
        continue;
      }
      String field = path + "." + dimension;
      boolean metered =
          Dimension.REQUESTS.equals(dimension)
              ? configured.requestsPerS() != null
              : upstream.tokensPerS() != null;
      if (!metered) {
        throw new WorkloadException(
            field,
            field
                + " is given, but the gate meters no "
                + dimension
                + ": upstream."
                + dimension
                + "_per_s is null");
      }
      out.add(
          new Limits.Calendar(
              dimension, period, number(node, dimension, field, null, 0, false, MAX_CALENDAR)));
    }
    if (out.isEmpty()) {
      throw new WorkloadException(path, path + " must limit at least one of requests, tokens");
    }
    return out;
  }

  /**
   * {@code gate.quotas.price}: {@code {input_per_million, output_per_million}}, both required, each
   * in [0, 1e6]; null when absent.
   */
  private static Limits.Price price(JsonNode node) {
    if (node == null) {
      return null;
    }
    onlyKeys(node, "gate.quotas.price.", Set.of("input_per_million", "output_per_million"));
    double[] values = new double[2];
    String[] keys = {"input_per_million", "output_per_million"};
    for (int i = 0; i < 2; i++) {
      values[i] =
          number(node, keys[i], "gate.quotas.price." + keys[i], null, 0, true, Limits.MAX_PRICE);
    }
    return new Limits.Price(values[0], values[1]);
  }

  /**
   * {@code gate.quotas.tenants} or {@code gate.quotas.classes}: name to quota, into {@code out}.
   */
  private static void quotaMap(
      JsonNode quotas, String key, Limits.Price price, Map<String, Limits.Quota> out) {
    JsonNode node = mapping(quotas, key, "gate.quotas." + key, false);
    if (node == null) {
      return;
    }
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      out.put(e.getKey(), quota(e.getValue(), "gate.quotas." + key + "." + e.getKey(), price));
    }
  }

  /**
   * One quota: exactly one of {@code tokens} or {@code currency}, a number in (0, 1e15], and {@code
   * per: day} or {@code per: month}; in currency only with {@code gate.quotas.price}.
   */
  private static Limits.Quota quota(JsonNode node, String path, Limits.Price price) {
    if (!node.isObject()) {
      throw new WorkloadException(
          path, path + " must be a mapping {tokens or currency: amount, per: day or month}");
    }
    onlyKeys(node, path + ".", Set.of("tokens", "currency", "per"));
    boolean tokens = node.has("tokens") && !node.get("tokens").isNull();
    boolean currency = node.has("currency") && !node.get("currency").isNull();
    if (tokens == currency) {
      throw new WorkloadException(
          path, path + " must give exactly one of tokens and currency, got " + node);
    }
    if (currency && price == null) {
      throw new WorkloadException(
          path + ".currency",
          path + ".currency needs gate.quotas.price to convert the calls' tokens into money");
    }
    String per = text(node, "per", path + ".per", null);
    Limits.Period period =
        switch (per) {
          case "day" -> Limits.Period.DAY;
          case "month" -> Limits.Period.MONTH;
          default ->
              throw new WorkloadException(
                  path + ".per", path + ".per must be one of day, month, got '" + per + "'");
        };
    String unit = tokens ? "tokens" : "currency";
    return new Limits.Quota(
        number(node, unit, path + "." + unit, null, 0, false, MAX_CALENDAR),
        tokens ? Limits.QuotaUnit.TOKENS : Limits.QuotaUnit.CURRENCY,
        period);
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
