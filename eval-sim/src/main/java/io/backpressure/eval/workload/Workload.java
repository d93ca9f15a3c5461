package io.backpressure.eval.workload;

import io.backpressure.core.Dimension;
import io.backpressure.core.Limits;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One evaluation workload, as read from the YAML schema of eval/README.md by {@link
 * WorkloadReader}. Immutable and range-checked by the reader; times in seconds, rates per second.
 *
 * @param name the workload's name (also the default output folder)
 * @param description what it models and which parameters were chosen, and why
 * @param durationS the run length in virtual seconds, warm-up included
 * @param warmupS the start of the contention window
 * @param startAt the calendar instant at t = 0 ({@code start_at}): where the run stands against the
 *     midnights of the gate's calendar windows and quotas and of the provider's caps per day
 * @param upstream the provider's caps, window model and latency
 * @param priorities the classes, highest first, with their weights {@code ω_k}
 * @param slots the number of worker slots shared by every activity
 * @param gate the gate options (reservation mode)
 * @param tenants the tenants; each tenant is one queue {@code (t, k)}
 * @param scale the divisor this workload was scaled down by ({@link #scaled}); 1 as written
 */
public record Workload(
    String name,
    String description,
    double durationS,
    double warmupS,
    Instant startAt,
    Upstream upstream,
    List<PriorityWeight> priorities,
    int slots,
    GateOptions gate,
    List<Tenant> tenants,
    double scale) {

  /** The calendar instant at t = 0 of a workload that gives no {@code start_at}. */
  public static final Instant DEFAULT_START = Instant.parse("2026-01-01T00:00:00Z");

  public Workload {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(startAt, "startAt");
    priorities = List.copyOf(priorities);
    tenants = List.copyOf(tenants);
  }

  /** This workload with another run length, for short runs. */
  public Workload withDuration(double seconds) {
    if (!(seconds > warmupS)) {
      throw new IllegalArgumentException(
          "the duration must exceed the workload's warmup_s (" + warmupS + " s), got " + seconds);
    }
    return new Workload(
        name,
        description,
        seconds,
        warmupS,
        startAt,
        upstream,
        priorities,
        slots,
        gate,
        tenants,
        scale);
  }

  /**
   * This workload scaled down by {@code divisor}, keeping its shape: the caps, the open-loop rates,
   * the worker slots and every closed-loop tenant's workflows are divided by it (counts rounded, at
   * least 1), and a trace's arrivals are spread over {@code divisor} times as long (its rate
   * divided likewise); so are the provider's caps per day and the gate's calendar limits and quotas
   * (each tenant submits {@code divisor} times less), so offered load, entitlements and contention
   * keep their proportions while the engine handles {@code divisor} times fewer calls per second.
   * Call sizes, latency, durations and weights are unchanged. Scaling an already scaled workload
   * multiplies the divisors.
   *
   * @param divisor in [1, 1000]
   * @throws IllegalArgumentException out of range
   */
  public Workload scaled(double divisor) {
    if (!(divisor >= 1 && divisor <= 1000)) {
      throw new IllegalArgumentException("--scale must be in [1, 1000], got " + divisor);
    }
    if (divisor == 1) {
      return this;
    }
    Upstream up = reshapedUpstream(1, divisor);
    List<Tenant> scaledTenants =
        tenants.stream()
            .map(
                t ->
                    reshaped(
                        t,
                        t.openLoop() || t.replaysTrace()
                            ? t.workflows()
                            : (int) Math.max(1, Math.round(t.workflows() / divisor)),
                        1,
                        divisor))
            .toList();
    GateOptions scaledGate = gateDividedBy(divisor);
    return new Workload(
        name,
        description,
        durationS,
        warmupS,
        startAt,
        up,
        priorities,
        (int) Math.max(1, Math.round(slots / divisor)),
        scaledGate,
        scaledTenants,
        scale * divisor);
  }

  /**
   * This workload with its time stretched by {@code factor}, keeping every ratio of it: the
   * provider's period, its latencies and the times of its schedule, every tenant's start, stop and
   * deadline and a trace's arrival times, the classes' wait limits, the run's duration and warm-up
   * are multiplied by {@code factor}; every rate (caps, outside traffic, open-loop arrivals) is
   * divided by it. Call sizes, slots, workflows and weights are unchanged. So each call is the same
   * share of one period's allowance (cap × period), each closed-loop workflow asks for the same
   * share of the caps (its latency grew as the caps shrank), and the engine handles {@code factor}
   * times fewer calls per second, each waiting {@code factor} times longer, which makes the fixed
   * costs of a real stack (dispatch, timers, HTTP) {@code factor} times smaller against the
   * workload's own times. Dimensionless metrics (Jain, 429 share, cap used, expired share) keep
   * their meaning; rates come out divided by {@code factor} and latencies multiplied by it.
   *
   * <p>{@link #scaled} divides the caps but not the call sizes: each call becomes {@code divisor}
   * times larger against the window, which changes the workload when calls are large.
   *
   * <p>A workload that {@link #followsCalendar follows the calendar} cannot be stretched: its day
   * ends at a midnight of the clock, which no factor moves.
   *
   * @param factor in [1, 1000]
   * @throws IllegalArgumentException out of range, or for a workload that follows the calendar
   */
  public Workload stretched(double factor) {
    if (!(factor >= 1 && factor <= 1000)) {
      throw new IllegalArgumentException("--time-scale must be in [1, 1000], got " + factor);
    }
    if (factor == 1) {
      return this;
    }
    if (followsCalendar()) {
      throw new IllegalArgumentException(
          "--time-scale cannot stretch workload "
              + name
              + ": its gate.per_day, gate.per_month, gate.quotas or upstream.per_day count per"
              + " calendar day or month, whose midnights no time scale moves");
    }
    Upstream up = reshapedUpstream(factor, factor);
    List<PriorityWeight> classes =
        priorities.stream()
            .map(
                k ->
                    new PriorityWeight(
                        k.name(), k.weight(), k.maxWaitS() == null ? null : k.maxWaitS() * factor))
            .toList();
    List<Tenant> stretchedTenants =
        tenants.stream().map(t -> reshaped(t, t.workflows(), factor, factor)).toList();
    GateOptions stretchedGate = gateDividedBy(factor);
    return new Workload(
        name,
        description,
        durationS * factor,
        warmupS * factor,
        startAt,
        up,
        classes,
        slots,
        stretchedGate,
        stretchedTenants,
        scale);
  }

  /**
   * The provider with its period, latencies and schedule times multiplied by {@code time} and its
   * caps (schedule and outside traffic included) divided by {@code rates}.
   */
  private Upstream reshapedUpstream(double time, double rates) {
    return new Upstream(
        upstream.window(),
        upstream.periodS() * time,
        upstream.requestsPerS() == null ? null : upstream.requestsPerS() / rates,
        upstream.tokensPerS() == null ? null : upstream.tokensPerS() / rates,
        upstream.rejectedCount(),
        upstream.latencyMinMs() * time,
        upstream.latencyMaxMs() * time,
        upstream.schedule().stream()
            .map(c -> new CapChange(c.atS() * time, c.caps().divided(rates)))
            .toList(),
        upstream.outside().divided(rates),
        upstream.errorRate(),
        upstream.latencySchedule().stream()
            .map(c -> new LatencyChange(c.atS() * time, c.minMs() * time, c.maxMs() * time))
            .toList(),
        upstream.perDay().divided(rates));
  }

  /**
   * {@code t} with {@code workflows}, its start, stop and deadline multiplied by {@code time}, its
   * open-loop rate divided by {@code rates} and its trace spread over {@code rates} times as long.
   */
  private static Tenant reshaped(Tenant t, int workflows, double time, double rates) {
    return new Tenant(
        t.name(),
        t.priority(),
        t.weight(),
        workflows,
        t.callsPerWorkflow(),
        t.promptTokens(),
        t.completionTokens(),
        t.maxTokens(),
        t.openLoopRps() == null ? null : t.openLoopRps() / rates,
        t.startS() * time,
        t.stopS() == null ? null : t.stopS() * time,
        t.deadlineS() == null ? null : t.deadlineS() * time,
        t.trace() == null ? null : t.trace().stretched(rates));
  }

  /**
   * The gate options with the configured caps, calendar limits and quotas divided by {@code rates}
   * (a workload that is stretched has no calendar limits or quotas).
   */
  private GateOptions gateDividedBy(double rates) {
    return new GateOptions(
        gate.reservation(),
        gate.defaultMaxTokens(),
        gate.caps() == null ? null : gate.caps().divided(rates),
        dividedLimits(gate.limits(), rates));
  }

  /** {@code limits} with every calendar limit and quota amount divided by {@code divisor}. */
  private static Limits dividedLimits(Limits limits, double divisor) {
    Map<String, Limits.Quota> tenants = new HashMap<>();
    limits.tenantQuotas().forEach((t, q) -> tenants.put(t, divided(q, divisor)));
    Map<String, Limits.Quota> classes = new HashMap<>();
    limits.classQuotas().forEach((k, q) -> classes.put(k, divided(q, divisor)));
    return new Limits(
        limits.concurrency(),
        limits.calendar().stream()
            .map(c -> new Limits.Calendar(c.dimension(), c.period(), c.limit() / divisor))
            .toList(),
        limits.timeZone(),
        limits.price(),
        tenants,
        limits.defaultTenantQuota() == null ? null : divided(limits.defaultTenantQuota(), divisor),
        classes);
  }

  private static Limits.Quota divided(Limits.Quota quota, double divisor) {
    return new Limits.Quota(quota.amount() / divisor, quota.unit(), quota.period());
  }

  /**
   * Whether the run counts anything per calendar day or month: the gate's {@code per_day}, {@code
   * per_month} or {@code quotas}, or the provider's {@code per_day}.
   */
  public boolean followsCalendar() {
    Limits limits = gate.limits();
    return !limits.calendar().isEmpty()
        || !limits.tenantQuotas().isEmpty()
        || limits.defaultTenantQuota() != null
        || !limits.classQuotas().isEmpty()
        || upstream.perDay().any();
  }

  /**
   * Whether {@link #scaled scaling by} {@code divisor} keeps every call within the provider's
   * allowance of one period: false when some tenant's largest call (prompt plus clamped completion)
   * is above the divided token cap times the period, so the scaled provider could never serve it.
   */
  public boolean callsFitScaledBy(double divisor) {
    if (upstream.tokensPerS() == null) {
      return true;
    }
    double room =
        (upstream.tokensPerS() - upstream.outsideOf(Dimension.TOKENS))
            / divisor
            * upstream.periodS();
    for (Tenant t : tenants) {
      if (t.promptTokens().max() + t.clampCompletion(t.completionTokens().max()) > room) {
        return false;
      }
    }
    return true;
  }

  /** {@code s} seconds of the run's time, in nanoseconds (rounded). */
  public static long nanos(double s) {
    return Math.round(s * 1e9);
  }

  /** The rank of class {@code priority} (0 is the highest), or -1. */
  public int classIndex(String priority) {
    for (int k = 0; k < priorities.size(); k++) {
      if (priorities.get(k).name().equals(priority)) {
        return k;
      }
    }
    return -1;
  }

  /** The weight {@code ω_k} of class {@code priority}. */
  public double classWeight(String priority) {
    return priorities.get(classIndex(priority)).weight();
  }

  /**
   * A class, its weight and its default wait limit.
   *
   * @param name the class's name
   * @param weight {@code ω_k}
   * @param maxWaitS the longest a call of this class waits for its turn when the call carries no
   *     deadline of its own (long form {@code {weight: w, max_wait_s: s}}), or null for no limit
   */
  public record PriorityWeight(String name, double weight, Double maxWaitS) {

    /** A class of the short form: weight only, no wait limit. */
    PriorityWeight(String name, double weight) {
      this(name, weight, null);
    }
  }

  /**
   * A cap per dimension, per second; null where the dimension is not capped (or not given).
   *
   * @param requestsPerS requests per second, or null
   * @param tokensPerS tokens per second, or null
   */
  public record Caps(Double requestsPerS, Double tokensPerS) {
    static final Caps NONE = new Caps(null, null);

    /** The cap of {@code dimension} ({@code requests} or {@code tokens}), or null. */
    public Double of(String dimension) {
      return Dimension.REQUESTS.equals(dimension) ? requestsPerS : tokensPerS;
    }

    Caps divided(double divisor) {
      return new Caps(
          requestsPerS == null ? null : requestsPerS / divisor,
          tokensPerS == null ? null : tokensPerS / divisor);
    }
  }

  /**
   * From {@code atS} on, the provider's true caps are {@code caps} (drift); a dimension not given
   * keeps its previous cap.
   */
  public record CapChange(double atS, Caps caps) {}

  /**
   * From {@code atS} on, the provider's service latency of a 200 is uniform in {@code [minMs,
   * maxMs]}.
   */
  public record LatencyChange(double atS, double minMs, double maxMs) {}

  /**
   * The provider's caps per calendar day, beside its per-period caps, as the mock provider counts
   * them ({@code DailyCaps}): at most {@code requests} calls and {@code tokens} tokens (each call's
   * prompt plus completion) between two midnights of {@code zone}, counted exactly from the run's
   * start; a call that does not fit is refused with OpenAI's per-day 429 until the next midnight.
   *
   * @param requests calls per day, or null for no cap
   * @param tokens tokens per day, or null for no cap
   * @param zone where a day starts and ends
   */
  public record DayCaps(Double requests, Double tokens, ZoneId zone) {
    /** No cap per day. */
    public static final DayCaps NONE = new DayCaps(null, null, ZoneOffset.UTC);

    public DayCaps {
      Objects.requireNonNull(zone, "zone");
    }

    /** Whether a dimension is capped per day. */
    public boolean any() {
      return requests != null || tokens != null;
    }

    DayCaps divided(double divisor) {
      return new DayCaps(
          requests == null ? null : requests / divisor,
          tokens == null ? null : tokens / divisor,
          zone);
    }
  }

  /**
   * The provider.
   *
   * @param window {@code fixed}, {@code sliding} or {@code bucket}
   * @param periodS the accounting period in seconds
   * @param requestsPerS the request cap per second, or null when requests are not capped
   * @param tokensPerS the token cap per second, or null when tokens are not capped
   * @param rejectedCount whether a 429 counts against the window
   * @param latencyMinMs the shortest service latency of a 200
   * @param latencyMaxMs the longest service latency of a 200 (uniform in between)
   * @param schedule changes of the true caps over the run, by increasing {@code atS}; empty for
   *     caps that never change
   * @param outside traffic on the same caps that never asks the gate, spread evenly (requests/s and
   *     tokens/s; 0 where none)
   * @param errorRate the share of answers that are 500s unrelated to rate limits, in [0, 1)
   * @param latencySchedule changes of the service latency over the run, by increasing {@code atS};
   *     empty for a latency that never changes
   * @param perDay the caps per calendar day ({@link DayCaps#NONE} for none)
   */
  public record Upstream(
      String window,
      double periodS,
      Double requestsPerS,
      Double tokensPerS,
      boolean rejectedCount,
      double latencyMinMs,
      double latencyMaxMs,
      List<CapChange> schedule,
      Caps outside,
      double errorRate,
      List<LatencyChange> latencySchedule,
      DayCaps perDay) {

    public Upstream {
      schedule = List.copyOf(schedule);
      latencySchedule = List.copyOf(latencySchedule);
      Objects.requireNonNull(outside, "outside");
      Objects.requireNonNull(perDay, "perDay");
    }

    /** A provider whose caps never change, with no outside traffic and no errors. */
    public Upstream(
        String window,
        double periodS,
        Double requestsPerS,
        Double tokensPerS,
        boolean rejectedCount,
        double latencyMinMs,
        double latencyMaxMs) {
      this(
          window,
          periodS,
          requestsPerS,
          tokensPerS,
          rejectedCount,
          latencyMinMs,
          latencyMaxMs,
          List.of(),
          Caps.NONE,
          0,
          List.of(),
          DayCaps.NONE);
    }

    /**
     * The service latency's bounds {@code {min, max}} in ms at {@code seconds} into the run: the
     * file's {@code latency_ms}, changed by every {@code latency_schedule} entry due by then.
     */
    public double[] latencyAt(double seconds) {
      double min = latencyMinMs;
      double max = latencyMaxMs;
      for (LatencyChange change : latencySchedule) {
        if (change.atS() > seconds) {
          break;
        }
        min = change.minMs();
        max = change.maxMs();
      }
      return new double[] {min, max};
    }

    /** The mean service latency of a 200, in milliseconds. */
    public double meanLatencyMs() {
      return (latencyMinMs + latencyMaxMs) / 2;
    }

    /**
     * The 95th percentile of a 200's service latency, in milliseconds: what a caller that must be
     * answered by its deadline keeps back from its budget for the answer (see {@code
     * GateConfiguration#maxWait}).
     */
    public double p95LatencyMs() {
      return latencyMinMs + 0.95 * (latencyMaxMs - latencyMinMs);
    }

    /**
     * The caps at t = 0, as the file's {@code requests_per_s} and {@code tokens_per_s} give them.
     */
    public Caps initialCaps() {
      return new Caps(requestsPerS, tokensPerS);
    }

    /**
     * The true caps at {@code seconds} into the run: the initial caps, changed by every schedule
     * entry due by then.
     */
    public Caps capsAt(double seconds) {
      Double requests = requestsPerS;
      Double tokens = tokensPerS;
      for (CapChange change : schedule) {
        if (change.atS() > seconds) {
          break;
        }
        requests = change.caps().requestsPerS() != null ? change.caps().requestsPerS() : requests;
        tokens = change.caps().tokensPerS() != null ? change.caps().tokensPerS() : tokens;
      }
      return new Caps(requests, tokens);
    }

    /** Outside traffic of {@code dimension} per second (0 when none). */
    public double outsideOf(String dimension) {
      Double v = outside.of(dimension);
      return v == null ? 0 : v;
    }

    /** Whether the caps drift or outside traffic shares them: the cap in use changes over time. */
    public boolean drifts() {
      return !schedule.isEmpty()
          || outsideOf(Dimension.REQUESTS) > 0
          || outsideOf(Dimension.TOKENS) > 0;
    }
  }

  /**
   * How the gate under test is set up for this workload.
   *
   * @param reservation debit {@code prompt + max_tokens} at admission and refund after the reply
   * @param defaultMaxTokens the completion bound reserved for calls that carry no {@code
   *     max_tokens}
   * @param caps the caps the operator configured in the gate, or null for the upstream's caps at t
   *     = 0; a dimension not given takes the upstream's
   * @param limits the gate's limits beyond its caps: its limit on calls in flight (fixed or
   *     adaptive), its calendar windows per day or month with their time zone, and the tenants' and
   *     classes' quotas with the model's price; {@link Limits#NONE} for none
   */
  public record GateOptions(boolean reservation, long defaultMaxTokens, Caps caps, Limits limits) {

    public GateOptions {
      Objects.requireNonNull(limits, "limits");
    }

    /** The gate's limit on calls in flight, or null for none. */
    public Limits.Concurrency concurrency() {
      return limits.concurrency();
    }

    /** The gate's configured caps for {@code upstream}. */
    public Caps configuredCaps(Upstream upstream) {
      if (caps == null) {
        return upstream.initialCaps();
      }
      return new Caps(
          caps.requestsPerS() != null ? caps.requestsPerS() : upstream.requestsPerS(),
          caps.tokensPerS() != null ? caps.tokensPerS() : upstream.tokensPerS());
    }
  }

  /**
   * One tenant, which is one queue: it belongs to one class.
   *
   * @param name the tenant's name
   * @param priority its class
   * @param weight its weight {@code w_t}
   * @param workflows closed loop: this many workflows, each running its calls one after another; 0
   *     for an open-loop tenant
   * @param callsPerWorkflow calls per workflow (closed loop)
   * @param promptTokens the input size of each call (what the gate is told up front)
   * @param completionTokens the output size of each call before the {@code max_tokens} clamp
   * @param maxTokens the call's {@code max_tokens}, or null
   * @param openLoopRps open loop: Poisson arrivals at this rate, each one call; null for closed
   *     loop
   * @param startS when the tenant starts submitting
   * @param stopS when it stops submitting new calls, or null for never
   * @param deadlineS the caller gives up this long after submitting a call, or null for never
   * @param trace the calls of a tenant that replays a trace ({@code workflows} 0, {@code
   *     openLoopRps} null, token counts {@link TokenCount.Observed}), or null
   */
  public record Tenant(
      String name,
      String priority,
      double weight,
      int workflows,
      long callsPerWorkflow,
      TokenCount promptTokens,
      TokenCount completionTokens,
      Long maxTokens,
      Double openLoopRps,
      double startS,
      Double stopS,
      Double deadlineS,
      TraceArrivals trace) {

    /** This tenant under another name. */
    public Tenant withName(String name) {
      return new Tenant(
          name,
          priority,
          weight,
          workflows,
          callsPerWorkflow,
          promptTokens,
          completionTokens,
          maxTokens,
          openLoopRps,
          startS,
          stopS,
          deadlineS,
          trace);
    }

    /** A tenant of Poisson arrivals ({@code open_loop_rps}). */
    public boolean openLoop() {
      return openLoopRps != null;
    }

    /** A tenant whose calls come from a trace file. */
    public boolean replaysTrace() {
      return trace != null;
    }

    /** The deadline in nanoseconds after submission, or {@code Long.MAX_VALUE} for none. */
    public long deadlineNanos() {
      return deadlineS == null ? Long.MAX_VALUE : Math.round(deadlineS * 1e9);
    }

    /**
     * The completion the provider produces for a drawn {@code completion}: clamped by max_tokens.
     */
    public long clampCompletion(long completion) {
      return maxTokens == null ? completion : Math.min(completion, maxTokens);
    }

    /** Mean tokens the provider counts per call: prompt plus clamped completion. */
    public double meanTokensPerCall() {
      return promptTokens.mean() + completionTokens.meanClampedAt(maxTokens);
    }
  }
}
